// Cloud saves: a player's objects of a collection; support edits one from the version shown (a
// newer save by the player or a room is a conflict to reload, never overwritten) or deletes it.
export async function render(root, { api, h, table, attempt, load, operator }) {
  const list = h("div", { id: "save-list" });
  const form = h(
    "form",
    { id: "save-player", onsubmit: (e) => { e.preventDefault(); show(); } },
    h("label", {}, "Player's user id", h("input", { name: "userId", id: "save-user", required: true, size: 38 })),
    h("label", {}, "App", h("input", { name: "app", id: "save-app", value: "default", size: 10 })),
    h("label", {}, "Collection", h("input", { name: "collection", id: "save-collection", required: true, size: 16 })),
    h("button", { type: "submit" }, "Show saves"),
  );
  const field = (name) => String(new FormData(form).get(name) || "");
  const canChange = operator.role === "support" || operator.role === "admin";
  const objectPath = (x, action) =>
    `/saves/players/${encodeURIComponent(field("userId"))}/${encodeURIComponent(x.collection)}/${encodeURIComponent(x.key)}/${action}`;
  const show = async (cursor) => {
    const query = `app=${encodeURIComponent(field("app") || "default")}&collection=${encodeURIComponent(field("collection"))}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`;
    const page = await load("Saves", () => api("GET", `/saves/players/${encodeURIComponent(field("userId"))}?${query}`));
    if (!page) return;
    const edit = (x) => {
      const text = h("textarea", { rows: 6, cols: 60, "aria-label": `Value of ${x.key}` });
      text.value = JSON.stringify(x.value, null, 2);
      const save = async () => {
        let value;
        try {
          value = JSON.parse(text.value);
        } catch (err) {
          return attempt(`edit ${x.key}`, () => Promise.reject(new Error(`not JSON: ${err.message}`)));
        }
        if (await attempt(`edit ${x.key}`, () => api("POST", objectPath(x, "edit"), { app: page.app, version: x.version, value }))) await show(cursor);
      };
      const remove = async () => {
        if (await attempt(`delete ${x.key}`, () => api("POST", objectPath(x, "delete"), { app: page.app, version: x.version }))) await show(cursor);
      };
      return [
        text,
        h("button", { type: "button", "aria-label": `Save ${x.key}`, onclick: save }, "Save"),
        h("button", { type: "button", className: "danger", "aria-label": `Delete ${x.key}`, onclick: remove }, "Delete"),
      ];
    };
    list.replaceChildren(
      table([
        { title: "Key", cell: (x) => x.key },
        { title: "Version", cell: (x) => String(x.version) },
        { title: "Read / write", cell: (x) => `${x.permissionRead} / ${x.permissionWrite}` },
        { title: "Updated", cell: (x) => x.updatedAt },
        { title: "Value", cell: (x) => (canChange ? edit(x) : h("pre", {}, JSON.stringify(x.value, null, 2))) },
      ], page.objects, "Saved objects"),
      page.cursor ? h("button", { type: "button", onclick: () => show(page.cursor) }, "Next page") : "",
    );
  };
  root.append(h("section", {}, h("h2", {}, "A player's saves"), form, list));
}
