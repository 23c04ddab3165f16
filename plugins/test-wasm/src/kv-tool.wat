;; Tool "remember": returns the previous input (kv key "last", "" at first) and stores the new one.
;; A failed kv.set (quota) becomes {success: false, error: <message>}.
(module
  (import "prx:host/kv@0.1.0" "get" (func $kv_get (param i32 i32 i32)))
  (import "prx:host/kv@0.1.0" "set" (func $kv_set (param i32 i32 i32 i32 i32)))
  ;;@prelude
  ;;@component-prelude
  ;;@post prx:plugin/tool-exports@0.1.0#get-spec prx:plugin/tool-exports@0.1.0#execute
  ;;@str $name "remember"
  ;;@str $desc "Returns the previous input and stores this one"
  ;;@str $schema "{}"
  ;;@str $key "last"
  (func (export "prx:plugin/tool-exports@0.1.0#get-spec") (result i32)
    (call $spec $name.ptr $name.len $desc.ptr $desc.len $schema.ptr $schema.len))
  (func (export "prx:plugin/tool-exports@0.1.0#execute") (param $p i32) (param $n i32) (result i32)
    (local $got i32) (local $set i32) (local $prev i32) (local $prevLen i32)
    (local.set $got (call $malloc (i32.const 12)))
    (call $kv_get $key.ptr $key.len (local.get $got))
    (if (i32.load8_u (local.get $got))
      (then
        (local.set $prev (i32.load offset=4 (local.get $got)))
        (local.set $prevLen (i32.load offset=8 (local.get $got)))))
    (local.set $set (call $malloc (i32.const 12)))
    (call $kv_set $key.ptr $key.len (local.get $p) (local.get $n) (local.get $set))
    (if (i32.load8_u (local.get $set))
      (then (return (call $result (i32.const 0) (i32.const 0) (i32.const 0) (i32.const 1)
        (i32.load offset=4 (local.get $set)) (i32.load offset=8 (local.get $set))))))
    (call $result (i32.const 1) (local.get $prev) (local.get $prevLen) (i32.const 0) (i32.const 0) (i32.const 0)))
)
