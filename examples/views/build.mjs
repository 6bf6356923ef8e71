// Bundles each view (a folder with index.html and main.js) into one HTML
// file under dist/: the script, with the MCP Apps SDK, inlined, so a host
// loads nothing else. `node build.mjs --out DIR` writes elsewhere (the
// browser test compares a fresh build with the committed one).
import { build } from "esbuild";
import { mkdir, readdir, readFile, stat, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const at = process.argv.indexOf("--out");
const out = at > 0 ? process.argv[at + 1] : join(here, "dist");
const SCRIPT = '<script type="module" src="./main.js"></script>';

await mkdir(out, { recursive: true });
for (const name of await readdir(here)) {
    const folder = join(here, name);
    if (!(await stat(folder)).isDirectory() || !(await exists(join(folder, "index.html")))) continue;
    const page = await readFile(join(folder, "index.html"), "utf8");
    if (!page.includes(SCRIPT)) throw new Error(`${name}/index.html must load its script as ${SCRIPT}`);
    const bundled = await build({
        entryPoints: [join(folder, "main.js")],
        bundle: true,
        minify: true,
        format: "esm",
        target: "es2022",
        write: false,
        legalComments: "none",
    });
    // Inside an inline script, `</script` would end it early.
    const code = bundled.outputFiles[0].text.replaceAll("</script", "<\\/script");
    const html = page.replace(SCRIPT, () => `<script type="module">${code}</script>`);
    await writeFile(join(out, `${name}.html`), html);
    console.log(`${name}.html: ${html.length} bytes`);
}

async function exists(path) {
    return stat(path).then(() => true, () => false);
}
