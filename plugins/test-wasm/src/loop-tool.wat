;; Tool "spin": execute never returns (an infinite loop), to prove the sandbox kills it at max_execution_time_ms.
(module
  ;;@prelude
  ;;@component-prelude
  ;;@post prx:plugin/tool-exports@0.1.0#get-spec prx:plugin/tool-exports@0.1.0#execute
  ;;@str $name "spin"
  ;;@str $desc "Loops forever"
  ;;@str $schema "{}"
  ;;@str $ok "alive"
  (func (export "prx:plugin/tool-exports@0.1.0#get-spec") (result i32)
    (call $spec $name.ptr $name.len $desc.ptr $desc.len $schema.ptr $schema.len))
  ;; execute("quick") returns "alive"; anything else spins forever
  (func (export "prx:plugin/tool-exports@0.1.0#execute") (param $p i32) (param $n i32) (result i32)
    (if (i32.eq (local.get $n) (i32.const 5))
      (then (return (call $result (i32.const 1) $ok.ptr $ok.len (i32.const 0) (i32.const 0) (i32.const 0)))))
    (loop $forever (br $forever))
    (unreachable))
)
