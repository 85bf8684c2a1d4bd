--[[ prefer_occupancy_sm90: an example user re-weighting, "prefer occupancy
fixes on sm_90".

What it does
  The paper's weighted random rule (as weighted_random.lua), except that on
  Hopper (ctx.arch "sm_90" or "sm_90a") the weight of occupancy-related
  actions is multiplied by BOOST: actions whose technique includes
  block_size_adaptation or register_pressure_reduction (a changed block-size
  tunable carries the first), and any action that sets --maxrregcount. When the profile shows low achieved occupancy
  (ctx.metrics.achieved_occupancy_pct below LOW_OCCUPANCY) the boost is
  squared. Nothing is ever excluded: other actions keep their chance.

When to use it
  Kernels on H100/H200 whose profiles are limited by occupancy (registers,
  block size), where the KB has too little data yet to know it; or as a
  template for any "prefer X on architecture Y" rule.

Parameters (edit the constants below)
  BOOST          weight multiplier for occupancy actions on sm_90 (default 3)
  LOW_OCCUPANCY  achieved occupancy (%) below which BOOST is squared (40)
  FLOOR, EXPLORE as in weighted_random.lua
]]

local BOOST = 3
local LOW_OCCUPANCY = 40
local FLOOR = 0.02
local EXPLORE = 0.1

local OCCUPANCY_TECHNIQUES = { block_size_adaptation = true, register_pressure_reduction = true }

-- An action's technique names what it changes ("a+b" when it changes
-- several settings). Its settings hold every tunable, defaults included, so
-- the presence of BLOCK_SIZE there says nothing: the tuner puts it into
-- every action of a kernel that declares it.
local function is_occupancy_action(action)
  for technique in string.gmatch(action.technique or "", "[^+]+") do
    if OCCUPANCY_TECHNIQUES[technique] then return true end
  end
  local flags = action.settings.flags
  return flags ~= nil and string.find(flags, "maxrregcount", 1, true) ~= nil
end

local function weight(action, boost)
  local kb = action.kb
  local w = (kb.predicted_speedup - 1) + EXPLORE * (1 - math.min(1, math.max(0, kb.confidence)))
  if w ~= w or w < FLOOR then w = FLOOR end
  if is_occupancy_action(action) then w = w * boost end
  return w
end

function select(ctx)
  local boost = 1
  if ctx.arch == "sm_90" or ctx.arch == "sm_90a" then
    boost = BOOST
    local occupancy = ctx.metrics.achieved_occupancy_pct
    if occupancy and occupancy < LOW_OCCUPANCY then boost = BOOST * BOOST end
  end
  local keyed = {}
  for i, action in ipairs(ctx.actions) do
    keyed[i] = { key = math.log(1 - math.random()) / weight(action, boost), id = action.id }
  end
  table.sort(keyed, function(a, b)
    if a.key ~= b.key then return a.key > b.key end
    return a.id < b.id
  end)
  local ids = {}
  for i, k in ipairs(keyed) do ids[i] = k.id end
  return ids
end

function accept(ctx, result)
  return result.status == "ok" and result.speedup > ctx.best_speedup
end

function stop(ctx)
  if #ctx.actions == 0 then return true end
  return nil
end
