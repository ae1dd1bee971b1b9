/**
 * Loaded before every test file (.mocharc.json `require`): the matches the tests make on
 * Node run the hot loops as WebAssembly (dist/web/kernels.wasm), as `npm start` does.
 */
import { installNodeKernels } from "../hosts/node/kernels";

installNodeKernels();
