-- expect: garbage: select\(\) returned a number \(expected an action id or a list of ids\)$
function select(ctx) return 42 end
