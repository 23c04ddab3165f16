;; Tool "bomb": execute("grow") grows linear memory until the host refuses, then traps; other input returns "ok".
(module
  ;;@prelude
  ;;@component-prelude
  ;;@post prx:plugin/tool-exports@0.1.0#get-spec prx:plugin/tool-exports@0.1.0#execute
  ;;@str $name "bomb"
  ;;@str $desc "Allocates memory until it fails"
  ;;@str $schema "{}"
  ;;@str $ok "ok"
  (func (export "prx:plugin/tool-exports@0.1.0#get-spec") (result i32)
    (call $spec $name.ptr $name.len $desc.ptr $desc.len $schema.ptr $schema.len))
  (func (export "prx:plugin/tool-exports@0.1.0#execute") (param $p i32) (param $n i32) (result i32)
    (if (i32.ne (local.get $n) (i32.const 4))
      (then (return (call $result (i32.const 1) $ok.ptr $ok.len (i32.const 0) (i32.const 0) (i32.const 0)))))
    (loop $more
      (br_if $more (i32.ne (memory.grow (i32.const 16)) (i32.const -1))))
    (unreachable))
)
