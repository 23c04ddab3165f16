;; Middleware "pass": process(stage, data-json) returns the envelope unchanged (the WAT side of the bench).
(module
  ;;@prelude
  ;;@component-prelude
  ;;@post prx:plugin/middleware-exports@0.1.0#process
  (func (export "prx:plugin/middleware-exports@0.1.0#process") (param $s i32) (param $sl i32) (param $d i32) (param $dl i32) (result i32)
    (local $r i32)
    (local.set $r (call $malloc (i32.const 12)))
    (i32.store8 (local.get $r) (i32.const 0))
    (i32.store offset=4 (local.get $r) (local.get $d))
    (i32.store offset=8 (local.get $r) (local.get $dl))
    (local.get $r))
)
