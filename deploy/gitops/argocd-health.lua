-- Health of a DynamoGraphDeployment from its status (docs/gitops.md).
hs = {}
local function condition(t)
  if obj.status ~= nil and obj.status.conditions ~= nil then
    for _, c in ipairs(obj.status.conditions) do
      if c.type == t then return c end
    end
  end
  return nil
end
if obj.metadata.deletionTimestamp ~= nil then
  hs.status = "Progressing"
  hs.message = "Being deleted: the garbage collector is removing its children"
  return hs
end
if obj.status == nil or obj.status.observedGeneration == nil
    or obj.status.observedGeneration < obj.metadata.generation then
  hs.status = "Progressing"
  hs.message = "Waiting for the operator to observe generation " .. tostring(obj.metadata.generation)
  return hs
end
local valid = condition("SpecValid")
if valid ~= nil and valid.status == "False" then
  hs.status = "Degraded"
  hs.message = valid.message
  return hs
end
local ready = condition("Ready")
if ready == nil or ready.status ~= "True" then
  hs.status = "Progressing"
  hs.message = ready ~= nil and ready.message or "Waiting for the Ready condition"
  return hs
end
local serving = condition("Serving")
if serving ~= nil and serving.status == "False" then
  hs.status = "Degraded"
  hs.message = tostring(serving.reason) .. ": " .. tostring(serving.message)
  return hs
end
hs.status = "Healthy"
hs.message = ready.message
return hs
