/** Native loops built from hosts/moddable/kernels.c (modules/kernels/loops.c); modules/native.ts `Kernels` describes them. */
import type { Kernels } from "../../modules/native";

export declare const plan: Kernels["plan"];
export declare const commit: Kernels["commit"];
export declare const pack: Kernels["pack"];
export declare const sync: Kernels["sync"];
export declare const notify: Kernels["notify"];
export declare const ship: Kernels["ship"];
export declare const mark: Kernels["mark"];
export declare const game: Kernels["game"];
export declare const transport: Kernels["transport"];
export declare const name: Kernels["name"];
