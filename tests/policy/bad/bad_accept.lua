-- expect: bad_accept: accept\(\) returned a string \(expected true, false or nil\)$
function select(ctx) return ctx.actions[1] and ctx.actions[1].id end
function accept(ctx, result) return "yes" end
