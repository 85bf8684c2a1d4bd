--[[ exhaustive: every action, in the order the tool lists them.

What it does
  select() returns all candidate actions in ctx.actions order; stop() never
  ends the search early (only when nothing is left); accept() takes a
  verified result that beats the best so far.

When to use it
  Small spaces (a few dozen configurations), and for recording: an
  exhaustive run's measurements are what `kernelblaster policy replay`
  replays to compare other policies against the true best.

Parameters
  none
]]

function select(ctx)
  local ids = {}
  for i, action in ipairs(ctx.actions) do ids[i] = action.id end
  return ids
end

function accept(ctx, result)
  return result.status == "ok" and result.speedup > ctx.best_speedup
end

function stop(ctx)
  return #ctx.actions == 0
end
