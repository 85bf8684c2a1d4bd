--[[ greedy: always the action with the highest predicted speedup.

What it does
  Orders the candidate actions by kb.predicted_speedup, highest first (ties
  by id, so the order is the same on every run). accept() takes a verified
  result that beats the best so far. stop() ends the search when nothing is
  left, or after PATIENCE measurements in a row that did not become the new
  best.

When to use it
  When the knowledge base is trusted (warmed on similar kernels on this
  architecture) and evaluations are expensive: it exploits and never
  explores, so a wrong KB estimate can hide the best configuration.

Parameters (edit the constants below)
  PATIENCE  measurements in a row without a new best before stopping
            (default 5; 0 turns early stopping off)
]]

local PATIENCE = 5

function select(ctx)
  local actions = {}
  for i, action in ipairs(ctx.actions) do actions[i] = action end
  table.sort(actions, function(a, b)
    local pa, pb = a.kb.predicted_speedup, b.kb.predicted_speedup
    if pa ~= pb then return pa > pb end
    return a.id < b.id
  end)
  local ids = {}
  for i, action in ipairs(actions) do ids[i] = action.id end
  return ids
end

function accept(ctx, result)
  return result.status == "ok" and result.speedup > ctx.best_speedup
end

function stop(ctx)
  if #ctx.actions == 0 then return true end
  if PATIENCE <= 0 or #ctx.history < PATIENCE then return nil end
  for i = #ctx.history - PATIENCE + 1, #ctx.history do
    if ctx.history[i].accepted then return nil end
  end
  return true
end
