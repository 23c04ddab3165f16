;; Tool "echo_upper": returns its input upper-cased (ASCII) and logs each call.
(module
  (import "prx:host/log@0.1.0" "log" (func $log (param i32 i32 i32)))
  ;;@prelude
  ;;@component-prelude
  ;;@post prx:plugin/tool-exports@0.1.0#get-spec prx:plugin/tool-exports@0.1.0#execute
  ;;@str $name "echo_upper"
  ;;@str $desc "Upper-cases its input"
  ;;@str $schema "{\"type\":\"object\",\"properties\":{\"text\":{\"type\":\"string\"}}}"
  ;;@str $msg "echo_upper called"
  (func (export "prx:plugin/tool-exports@0.1.0#get-spec") (result i32)
    (call $spec $name.ptr $name.len $desc.ptr $desc.len $schema.ptr $schema.len))
  (func (export "prx:plugin/tool-exports@0.1.0#execute") (param $p i32) (param $n i32) (result i32)
    (local $out i32) (local $i i32) (local $c i32)
    (call $log (i32.const 2) $msg.ptr $msg.len)
    (local.set $out (call $malloc (local.get $n)))
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
        (local.set $c (i32.load8_u (i32.add (local.get $p) (local.get $i))))
        (if (i32.and (i32.ge_u (local.get $c) (i32.const 97)) (i32.le_u (local.get $c) (i32.const 122)))
          (then (local.set $c (i32.sub (local.get $c) (i32.const 32)))))
        (i32.store8 (i32.add (local.get $out) (local.get $i)) (local.get $c))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $next)))
    (call $result (i32.const 1) (local.get $out) (local.get $n) (i32.const 0) (i32.const 0) (i32.const 0)))
)
