-- expect: unknown_id: select\(\) returned 'no such action', not one of ctx\.actions$
function select(ctx) return { "no such action" } end
