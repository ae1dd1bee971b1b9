/*
 * The XS face of the hot loops (modules/kernels/loops.c, game.c): each function takes the layout and
 * the four views of a Binding (modules/native.ts) from its arguments, then a few integers,
 * and calls the loop. The loops are compiled into this file, so that the compiler sees
 * them whole, as it did when they lived here.
 *
 * Built into the Moddable app (hosts/moddable/kernels.js declares the functions) and into
 * tools/xs/build/lwxs, which exposes them as xs.kernels. Only xs.h and xsmc.h's buffer
 * access are used, so the same file compiles against both XS trees.
 */
#ifdef LWXS_KERNELS
/* lwxs's platform header names the engine's own types: they come first there */
#include "xsAll.h"
#endif
#include "xs.h"
#include "xsmc.h"
#include "../../modules/kernels/loops.c"
#include "../../modules/kernels/game.c"
#include "../../modules/kernels/transport.c"
#include "../../modules/kernels/session.c"

/*
 * Arguments 0..4: layout, then the four views. Pointers are good until the call returns.
 * Only the views the binding's `mems` arrays name are looked up (each lookup is a host call
 * of its own; most bindings live in one or two buffers); the others repeat the first.
 */
static void lw_bind(xsMachine *the, lw_mem *m, int mems)
{
	void *data;
	xsUnsignedValue count;
	int i, used = 1;
	xsmcGetBufferWritable(xsArg(0), &data, &count);
	m->words = (int32_t *)data;
	for (i = 0; i < mems; i++)
		if (m->words[2 * i] + 1 > used) used = m->words[2 * i] + 1;
	for (i = 0; i < LW_VIEWS; i++) {
		if (i < used) {
			xsmcGetBufferWritable(xsArg(1 + i), &data, &count);
			m->view[i] = (uintptr_t)data;
		} else m->view[i] = m->view[0];
	}
}

#define LW_ARG(n) xsmcToInteger(xsArg(n))

void xs_lwar_plan(xsMachine *the)
{
	lw_mem m;
	lw_bind(the, &m, PLAN_MEMS);
	xsmcSetInteger(xsResult, lw_plan(&m, LW_ARG(5)));
}

void xs_lwar_commit(xsMachine *the)
{
	lw_mem m;
	lw_bind(the, &m, PLAN_MEMS);
	lw_commit(&m, LW_ARG(5), LW_ARG(6));
}

void xs_lwar_notify(xsMachine *the)
{
	lw_mem m;
	lw_bind(the, &m, PLAN_MEMS);
	lw_notify(&m, LW_ARG(5), LW_ARG(6));
}

void xs_lwar_pack(xsMachine *the)
{
	lw_mem m;
	lw_bind(the, &m, PACK_MEMS);
	xsmcSetInteger(xsResult, lw_pack(&m, LW_ARG(5), LW_ARG(6), LW_ARG(7), LW_ARG(8)));
}

void xs_lwar_sync(xsMachine *the)
{
	lw_mem m;
	lw_bind(the, &m, SYNC_MEMS);
	xsmcSetInteger(xsResult, lw_sync(&m, LW_ARG(5)));
}

void xs_lwar_mark(xsMachine *the)
{
	lw_mem m;
	lw_bind(the, &m, MARK_MEMS);
	lw_mark(&m, LW_ARG(5));
}

void xs_lwar_ship(xsMachine *the)
{
	lw_mem m;
	lw_bind(the, &m, SHIP_MEMS);
	xsmcSetInteger(xsResult, lw_ship(&m, LW_ARG(5)));
}

void xs_lwar_game(xsMachine *the)
{
	lw_mem m;
	lw_bind(the, &m, GAME_MEMS);
	xsmcSetInteger(xsResult, lw_game(&m, LW_ARG(5)));
}

void xs_lwar_transport(xsMachine *the)
{
	lw_mem m;
	lw_bind(the, &m, TRANSPORT_MEMS);
	xsmcSetInteger(xsResult, lw_transport(&m, LW_ARG(5), LW_ARG(6), LW_ARG(7), LW_ARG(8), LW_ARG(9), LW_ARG(10)));
}

void xs_lwar_name(xsMachine *the)
{
	lw_mem m;
	lw_bind(the, &m, NAME_MEMS);
	xsmcSetInteger(xsResult, lw_name(&m, LW_ARG(5), LW_ARG(6), LW_ARG(7), LW_ARG(8)));
}
