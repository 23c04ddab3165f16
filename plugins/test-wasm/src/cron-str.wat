;; Cron "tick": run() returns "cron ran".
(module
  ;;@prelude
  ;;@component-prelude
  ;;@post prx:plugin/cron-exports@0.1.0#run
  ;;@str $msg "cron ran"
  (func (export "prx:plugin/cron-exports@0.1.0#run") (result i32)
    (local $r i32)
    (local.set $r (call $malloc (i32.const 12)))
    (i32.store8 (local.get $r) (i32.const 0))
    (i32.store offset=4 (local.get $r) $msg.ptr)
    (i32.store offset=8 (local.get $r) $msg.len)
    (local.get $r))
)
