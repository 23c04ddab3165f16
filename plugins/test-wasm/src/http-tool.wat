;; Tool "fetch": GETs the URL given as input and returns the body; a host error becomes {success: false, error}.
(module
  (import "prx:host/http-outbound@0.1.0" "request"
    (func $request (param i32 i32 i32 i32 i32 i32 i32 i32 i32 i32)))
  ;;@prelude
  ;;@component-prelude
  ;;@post prx:plugin/tool-exports@0.1.0#get-spec prx:plugin/tool-exports@0.1.0#execute
  ;;@str $name "fetch"
  ;;@str $desc "GETs a URL"
  ;;@str $schema "{}"
  ;;@str $get "GET"
  (func (export "prx:plugin/tool-exports@0.1.0#get-spec") (result i32)
    (call $spec $name.ptr $name.len $desc.ptr $desc.len $schema.ptr $schema.len))
  (func (export "prx:plugin/tool-exports@0.1.0#execute") (param $p i32) (param $n i32) (result i32)
    (local $r i32)
    (local.set $r (call $malloc (i32.const 24)))
    ;; method, url, headers (empty list), body none, return area
    (call $request $get.ptr $get.len (local.get $p) (local.get $n) (i32.const 0) (i32.const 0)
      (i32.const 0) (i32.const 0) (i32.const 0) (local.get $r))
    (if (i32.load8_u (local.get $r))
      (then (return (call $result (i32.const 0) (i32.const 0) (i32.const 0) (i32.const 1)
        (i32.load offset=4 (local.get $r)) (i32.load offset=8 (local.get $r))))))
    ;; ok: http-response {status u16 @4, headers @8, body @16}
    (call $result (i32.const 1) (i32.load offset=16 (local.get $r)) (i32.load offset=20 (local.get $r))
      (i32.const 0) (i32.const 0) (i32.const 0)))
)
