;; Core module (no component) speaking the JSON ABI of src/plugins/wasm/CORE-ABI.md.
;; Tool "core_echo": execute(["text"]) stores "text" in kv key "core-last" through prx_host.call and returns
;; {"success": true, "output": "text"}; execute([""]) returns {"err": "empty input"}.
(module
  (import "prx_host" "call" (func $host (param i32 i32) (result i64)))
  ;;@prelude
  ;;@str $spec "{\"ok\":{\"name\":\"core_echo\",\"description\":\"Echoes its input (core module)\",\"parametersSchema\":\"{}\"}}"
  ;;@str $pre "{\"ok\":{\"success\":true,\"output\":"
  ;;@str $post "}}"
  ;;@str $kvpre "{\"fn\":\"kv.set\",\"args\":[\"core-last\","
  ;;@str $kvpost "]}"
  ;;@str $empty "{\"err\":\"empty input\"}"
  (func (export "alloc") (param $n i32) (result i32) (call $malloc (local.get $n)))
  ;; the host deallocates input and output after each call: the bump heap starts over
  (func (export "dealloc") (param i32 i32) (call $reset))
  (func $pack (param $p i32) (param $n i32) (result i64)
    (i64.or (i64.shl (i64.extend_i32_u (local.get $p)) (i64.const 32)) (i64.extend_i32_u (local.get $n))))
  (func $wrap (param $a i32) (param $al i32) (param $b i32) (param $bl i32) (param $c i32) (param $cl i32) (result i64)
    (local $buf i32) (local $len i32)
    (local.set $len (i32.add (i32.add (local.get $al) (local.get $bl)) (local.get $cl)))
    (local.set $buf (call $malloc (local.get $len)))
    (memory.copy (local.get $buf) (local.get $a) (local.get $al))
    (memory.copy (i32.add (local.get $buf) (local.get $al)) (local.get $b) (local.get $bl))
    (memory.copy (i32.add (i32.add (local.get $buf) (local.get $al)) (local.get $bl)) (local.get $c) (local.get $cl))
    (call $pack (local.get $buf) (local.get $len)))
  (func (export "get_spec") (param i32 i32) (result i64) (call $pack $spec.ptr $spec.len))
  (func (export "execute") (param $p i32) (param $n i32) (result i64)
    (local $inner i32) (local $innerLen i32) (local $req i64)
    ;; the args array is ["<json string>"]: the inner value sits between the brackets
    (local.set $inner (i32.add (local.get $p) (i32.const 1)))
    (local.set $innerLen (i32.sub (local.get $n) (i32.const 2)))
    (if (i32.le_u (local.get $innerLen) (i32.const 2)) (then (return (call $pack $empty.ptr $empty.len))))
    (local.set $req (call $wrap $kvpre.ptr $kvpre.len (local.get $inner) (local.get $innerLen) $kvpost.ptr $kvpost.len))
    (drop (call $host (i32.wrap_i64 (i64.shr_u (local.get $req) (i64.const 32))) (i32.wrap_i64 (local.get $req))))
    (call $wrap $pre.ptr $pre.len (local.get $inner) (local.get $innerLen) $post.ptr $post.len))
)
