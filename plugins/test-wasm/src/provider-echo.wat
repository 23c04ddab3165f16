;; Provider "wasm-echo": chat answers "wasm says: <content of the last user message>" with no tool calls;
;; err "no user message" when there is none. Imports kv too (provider worlds do not), which must still load.
(module
  (import "prx:host/kv@0.1.0" "get" (func $kv_get (param i32 i32 i32)))
  ;;@prelude
  ;;@component-prelude
  ;;@post prx:plugin/provider-exports@0.1.0#name prx:plugin/provider-exports@0.1.0#chat
  ;;@str $name "wasm-echo"
  ;;@str $says "wasm says: "
  ;;@str $user "user"
  ;;@str $none "no user message"
  (func (export "prx:plugin/provider-exports@0.1.0#name") (result i32)
    (local $r i32)
    (local.set $r (call $malloc (i32.const 8)))
    (i32.store (local.get $r) $name.ptr)
    (i32.store offset=4 (local.get $r) $name.len)
    (local.get $r))
  ;; messages: list<{role: string, content: string}> (16 bytes each), model: string, temperature: f64
  (func (export "prx:plugin/provider-exports@0.1.0#chat") (param $m i32) (param $mn i32) (param $model i32) (param $modelLen i32) (param $temp f64) (result i32)
    (local $i i32) (local $msg i32) (local $found i32) (local $c i32) (local $cl i32) (local $out i32) (local $r i32)
    (local.set $found (i32.const -1))
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $i) (local.get $mn)))
        (local.set $msg (i32.add (local.get $m) (i32.mul (local.get $i) (i32.const 16))))
        (if (i32.and (i32.eq (i32.load offset=4 (local.get $msg)) (i32.const 4))
                     (i32.eq (i32.load (i32.load (local.get $msg))) (i32.load $user.ptr)))
          (then (local.set $found (local.get $msg))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $next)))
    (local.set $r (call $malloc (i32.const 24)))
    (if (i32.eq (local.get $found) (i32.const -1))
      (then
        (i32.store8 (local.get $r) (i32.const 1))
        (i32.store offset=4 (local.get $r) $none.ptr)
        (i32.store offset=8 (local.get $r) $none.len)
        (return (local.get $r))))
    (local.set $c (i32.load offset=8 (local.get $found)))
    (local.set $cl (i32.load offset=12 (local.get $found)))
    (local.set $out (call $malloc (i32.add $says.len (local.get $cl))))
    (memory.copy (local.get $out) $says.ptr $says.len)
    (memory.copy (i32.add (local.get $out) $says.len) (local.get $c) (local.get $cl))
    ;; ok(chat-response { text: some(out), tool-calls: [] })
    (i32.store8 (local.get $r) (i32.const 0))
    (i32.store8 offset=4 (local.get $r) (i32.const 1))
    (i32.store offset=8 (local.get $r) (local.get $out))
    (i32.store offset=12 (local.get $r) (i32.add $says.len (local.get $cl)))
    (i32.store offset=16 (local.get $r) (i32.const 0))
    (i32.store offset=20 (local.get $r) (i32.const 0))
    (local.get $r))
)
