-- expect: infinite_loop: select\(\): instruction limit exceeded$
function select(ctx) while true do end end
