;; Tool "ws_ping": connects to the WebSocket URL given as input, sends "ping", waits up to 2 s for one message,
;; closes, and returns the message ("" when none came); a host error becomes {success: false, error}.
(module
  (import "prx:host/websocket@0.1.0" "connect" (func $connect (param i32 i32 i32 i32 i32)))
  (import "prx:host/websocket@0.1.0" "send" (func $send (param i64 i32 i32 i32)))
  (import "prx:host/websocket@0.1.0" "receive" (func $receive (param i64 i32 i32)))
  (import "prx:host/websocket@0.1.0" "close" (func $close (param i64 i32)))
  ;;@prelude
  ;;@component-prelude
  ;;@post prx:plugin/tool-exports@0.1.0#get-spec prx:plugin/tool-exports@0.1.0#execute
  ;;@str $name "ws_ping"
  ;;@str $desc "Pings a WebSocket server"
  ;;@str $schema "{}"
  ;;@str $ping "ping"
  (func (export "prx:plugin/tool-exports@0.1.0#get-spec") (result i32)
    (call $spec $name.ptr $name.len $desc.ptr $desc.len $schema.ptr $schema.len))
  (func $fail (param $r i32) (param $at i32) (result i32)
    (call $result (i32.const 0) (i32.const 0) (i32.const 0) (i32.const 1)
      (i32.load (i32.add (local.get $r) (local.get $at))) (i32.load offset=4 (i32.add (local.get $r) (local.get $at)))))
  (func (export "prx:plugin/tool-exports@0.1.0#execute") (param $p i32) (param $n i32) (result i32)
    (local $r i32) (local $id i64)
    (local.set $r (call $malloc (i32.const 16)))
    ;; connect -> result<u64, string>: payload at 8
    (call $connect (local.get $p) (local.get $n) (i32.const 0) (i32.const 0) (local.get $r))
    (if (i32.load8_u (local.get $r)) (then (return (call $fail (local.get $r) (i32.const 8)))))
    (local.set $id (i64.load offset=8 (local.get $r)))
    ;; send -> result<_, string>: payload at 4
    (call $send (local.get $id) $ping.ptr $ping.len (local.get $r))
    (if (i32.load8_u (local.get $r)) (then (return (call $fail (local.get $r) (i32.const 4)))))
    ;; receive -> result<option<string>, string>: option tag at 4, string at 8
    (call $receive (local.get $id) (i32.const 2000) (local.get $r))
    (if (i32.load8_u (local.get $r)) (then (return (call $fail (local.get $r) (i32.const 4)))))
    (if (i32.eqz (i32.load8_u offset=4 (local.get $r)))
      (then (i32.store offset=8 (local.get $r) (i32.const 0)) (i32.store offset=12 (local.get $r) (i32.const 0))))
    (call $close (local.get $id) (call $malloc (i32.const 12)))
    (call $result (i32.const 1) (i32.load offset=8 (local.get $r)) (i32.load offset=12 (local.get $r)) (i32.const 0) (i32.const 0) (i32.const 0)))
)
