-- expect: io_open: select\(\): io\.open is not available in the policy sandbox \(line 3\)$
function select(ctx)
  local f = io.open("/tmp/kernelblaster_policy_check_io_open", "w")
  return ctx.actions[1].id
end
