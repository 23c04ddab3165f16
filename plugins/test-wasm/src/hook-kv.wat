;; Hook "remember-events": on-event stores the last event name and payload in kv ("last-event", "last-payload").
;; The event "prx.test.subscribe" instead subscribes (prx:host/events) to the pattern given as payload.
(module
  (import "prx:host/kv@0.1.0" "set" (func $kv_set (param i32 i32 i32 i32 i32)))
  (import "prx:host/events@0.1.0" "subscribe" (func $subscribe (param i32 i32 i32)))
  ;;@prelude
  ;;@component-prelude
  ;;@post prx:plugin/hook-exports@0.1.0#on-event
  ;;@str $k1 "last-event"
  ;;@str $k2 "last-payload"
  ;;@str $sub "prx.test.subscribe"
  (func $memcmp (param $a i32) (param $b i32) (param $n i32) (result i32)
    (local $i i32)
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
        (if (i32.ne (i32.load8_u (i32.add (local.get $a) (local.get $i))) (i32.load8_u (i32.add (local.get $b) (local.get $i))))
          (then (return (i32.const 1))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $next)))
    (i32.const 0))
  (func (export "prx:plugin/hook-exports@0.1.0#on-event") (param $e i32) (param $el i32) (param $p i32) (param $pl i32) (result i32)
    (local $r i32) (local $s i32)
    (local.set $r (call $malloc (i32.const 16)))
    (if (i32.and (i32.eq (local.get $el) $sub.len)
                 (i32.eqz (call $memcmp (local.get $e) $sub.ptr $sub.len)))
      (then
        ;; result<u64, string>: tag @0, payload @8
        (local.set $s (call $malloc (i32.const 16)))
        (call $subscribe (local.get $p) (local.get $pl) (local.get $s))
        (i32.store8 (local.get $r) (i32.load8_u (local.get $s)))
        (i32.store offset=4 (local.get $r) (i32.load offset=8 (local.get $s)))
        (i32.store offset=8 (local.get $r) (i32.load offset=12 (local.get $s)))
        (return (local.get $r))))
    (call $kv_set $k1.ptr $k1.len (local.get $e) (local.get $el) (local.get $r))
    (if (i32.eqz (i32.load8_u (local.get $r)))
      (then (call $kv_set $k2.ptr $k2.len (local.get $p) (local.get $pl) (local.get $r))))
    ;; result<_, string> has the same layout as kv.set's: pass it through
    (local.get $r))
)
