-- expect: syntax_error: load: syntax error: .*\(line 2\)$
function select(ctx) return ) end
