/*
 * The WebAssembly face of the hot loops (loops.c, game.c), for Node and the page
 * (modules/native-wasm.ts). Every array lives in the module's one memory, so a binding has
 * one view, which starts at address 0, and each export takes the address of the binding's
 * layout words in place of the layout and its views. Built by npm run build:wasm
 * (tools/wasm/build.ts) into dist/web/kernels.wasm.
 */
#include "loops.c"
#include "game.c"
#include "transport.c"
#include "session.c"

#define LW_EXPORT(name) __attribute__((export_name(name)))

static inline lw_mem lw_at(int32_t *layout)
{
	lw_mem m = { { 0, 0, 0, 0 }, layout };
	return m;
}

LW_EXPORT("plan") int32_t lw_wasm_plan(int32_t *layout, int32_t slot)
{
	lw_mem m = lw_at(layout);
	return lw_plan(&m, slot);
}

LW_EXPORT("commit") void lw_wasm_commit(int32_t *layout, int32_t slot, int32_t sent)
{
	lw_mem m = lw_at(layout);
	lw_commit(&m, slot, sent);
}

LW_EXPORT("notify") void lw_wasm_notify(int32_t *layout, int32_t slot, int32_t n)
{
	lw_mem m = lw_at(layout);
	lw_notify(&m, slot, n);
}

LW_EXPORT("pack") int32_t lw_wasm_pack(int32_t *layout, int32_t pos, int32_t n, int32_t o, int32_t stats)
{
	lw_mem m = lw_at(layout);
	return lw_pack(&m, pos, n, o, stats);
}

LW_EXPORT("sync") int32_t lw_wasm_sync(int32_t *layout, int32_t slot)
{
	lw_mem m = lw_at(layout);
	return lw_sync(&m, slot);
}

LW_EXPORT("mark") void lw_wasm_mark(int32_t *layout, int32_t mask)
{
	lw_mem m = lw_at(layout);
	lw_mark(&m, mask);
}

LW_EXPORT("ship") int32_t lw_wasm_ship(int32_t *layout, int32_t slot)
{
	lw_mem m = lw_at(layout);
	return lw_ship(&m, slot);
}

LW_EXPORT("game") int32_t lw_wasm_game(int32_t *layout, int32_t run)
{
	lw_mem m = lw_at(layout);
	return lw_game(&m, run);
}

LW_EXPORT("transport") int32_t lw_wasm_transport(int32_t *layout, int32_t run, int32_t i, int32_t a, int32_t b, int32_t c, int32_t d)
{
	lw_mem m = lw_at(layout);
	return lw_transport(&m, run, i, a, b, c, d);
}

LW_EXPORT("name") int32_t lw_wasm_name(int32_t *layout, int32_t slot, int32_t from, int32_t length, int32_t mask)
{
	lw_mem m = lw_at(layout);
	return lw_name(&m, slot, from, length, mask);
}
