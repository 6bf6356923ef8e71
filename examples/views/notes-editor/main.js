// The note editor: shows the note `edit_note` opened, saves it with
// `write_note`, and lists the notes with `note_titles` (a tool for views
// alone), all through the host.
import { App } from "@modelcontextprotocol/ext-apps";

const app = new App({ name: "Note editor", version: "1.0.0" });
const $ = (id) => document.getElementById(id);
let current = null;

/** The text of a result's first text block (a failure's reason). */
const textOf = (result) => result.content?.find((c) => c.type === "text")?.text ?? "";

function show(note) {
    current = note;
    $("title").textContent = note.title;
    $("badge").textContent = note.exists ? "" : "new note";
    $("text").value = note.text;
    $("text").disabled = false;
    $("save").disabled = false;
    status("");
    for (const button of $("titles").querySelectorAll("button")) {
        button.setAttribute("aria-current", String(button.dataset.title === note.title));
    }
}

function status(message, error = false) {
    $("status").textContent = message;
    $("status").className = error ? "error" : "";
}

async function call(name, args) {
    const result = await app.callServerTool({ name, arguments: args });
    if (result.isError) throw new Error(textOf(result) || `${name} failed`);
    return result;
}

async function listTitles() {
    const { structuredContent } = await call("note_titles", {});
    const titles = structuredContent?.result ?? structuredContent ?? [];
    $("titles").replaceChildren(
        ...titles.map((title) => {
            const button = document.createElement("button");
            button.textContent = title;
            button.dataset.title = title;
            button.setAttribute("aria-current", String(title === current?.title));
            button.addEventListener("click", () => open(title));
            const item = document.createElement("li");
            item.append(button);
            return item;
        }),
    );
}

async function open(title) {
    try {
        show((await call("edit_note", { title })).structuredContent);
    } catch (error) {
        status(error.message, true);
    }
}

$("save").addEventListener("click", async () => {
    if (!current) return;
    $("save").disabled = true;
    status("Saving…");
    try {
        const result = await call("write_note", { title: current.title, text: $("text").value });
        current = { ...current, text: $("text").value, exists: true };
        $("badge").textContent = "";
        status(`Saved (${textOf(result)})`);
        await listTitles();
    } catch (error) {
        status(error.message, true);
    } finally {
        $("save").disabled = false;
    }
});

app.ontoolinput = ({ arguments: args }) => {
    if (args?.title) $("title").textContent = `Opening ${args.title}…`;
};
app.ontoolresult = (result) => {
    if (result.isError) status(textOf(result), true);
    else if (result.structuredContent) show(result.structuredContent);
    listTitles().catch((error) => status(error.message, true));
};

await app.connect();
app.setupSizeChangedNotifications?.();
