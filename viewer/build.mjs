// Bundle the viewer and the DICOM decoding worker into ../static/viewer/ (served by Django's
// static files; nothing from a CDN). The loader starts its worker from
// new URL("./decodeImageFrameWorker.js", import.meta.url), so both bundles sit side by side.
import * as esbuild from "esbuild";
import { mkdirSync, writeFileSync } from "node:fs";

const OUT = "../static/viewer";
// Emscripten codecs mention Node's modules on a path browsers never take: give them nothing.
const NODE_ONLY = ["fs", "path", "url", "crypto", "module", "worker_threads"];
const emptyNodeModules = {
  name: "empty-node-modules",
  setup(build) {
    const filter = new RegExp(`^(node:)?(${NODE_ONLY.join("|")})$`);
    build.onResolve({ filter }, (args) => ({ path: args.path, namespace: "empty" }));
    build.onLoad({ filter: /.*/, namespace: "empty" }, () => ({ contents: "module.exports = {};" }));
  },
};
const common = { bundle: true, format: "esm", minify: true, plugins: [emptyNodeModules],
                 logLevel: "error", legalComments: "linked" };

mkdirSync(OUT, { recursive: true });
await esbuild.build({ ...common, entryPoints: ["src/viewer.js"], outfile: `${OUT}/viewer.js` });
await esbuild.build({
  ...common,
  entryPoints: ["node_modules/@cornerstonejs/dicom-image-loader/dist/esm/decodeImageFrameWorker.js"],
  outfile: `${OUT}/decodeImageFrameWorker.js`,
});
writeFileSync(`${OUT}/BUILT_FROM`, process.env.VIEWER_SOURCE_HASH || "");
