// Cloud saves: a player's objects of a collection; support edits one from the version shown (a
// newer save by the player or a room is a conflict to reload, never overwritten) or deletes it.
// Both are confirmed first, naming the player, collection, key and version the change applies to.
import { addTexts, formatTime, t } from "../i18n.js";

addTexts({
  en: {
    "saves.title": "A player's saves", "saves.load": "Saves", "saves.user": "Player's user id", "saves.app": "App",
    "saves.collection": "Collection", "saves.show": "Show saves", "saves.key": "Key", "saves.version": "Version",
    "saves.permissions": "Read / write", "saves.updated": "Updated", "saves.value": "Value", "saves.objects": "Saved objects",
    "saves.next": "Next page", "saves.valueOf": "Value of {key}", "saves.save": "Save", "saves.delete": "Delete",
    "saves.saveOf": "Save {key}", "saves.deleteOf": "Delete {key}", "saves.notJson": "not JSON: {error}",
    "saves.perm.owner": "owner", "saves.perm.public": "public", "saves.perm.server": "server",
    "saves.confirmSave": "Save player {user}'s object {key} in collection {collection} (app {app})? The value in the box replaces version {version}.",
    "saves.confirmDelete": "Delete player {user}'s object {key} in collection {collection} (app {app}) at version {version}? It cannot be restored.",
  },
  "zh-CN": {
    "saves.title": "玩家的云存档", "saves.load": "云存档", "saves.user": "玩家用户 ID", "saves.app": "应用",
    "saves.collection": "集合", "saves.show": "查看存档", "saves.key": "键", "saves.version": "版本",
    "saves.permissions": "读 / 写权限", "saves.updated": "更新时间", "saves.value": "内容", "saves.objects": "存档对象",
    "saves.next": "下一页", "saves.valueOf": "{key} 的内容", "saves.save": "保存", "saves.delete": "删除",
    "saves.saveOf": "保存 {key}", "saves.deleteOf": "删除 {key}", "saves.notJson": "不是有效的 JSON：{error}",
    "saves.perm.owner": "仅本人", "saves.perm.public": "公开", "saves.perm.server": "仅服务器",
    "saves.confirmSave": "确定保存玩家 {user} 在集合 {collection}（应用 {app}）中的对象 {key}？框中的内容将替换版本 {version}。",
    "saves.confirmDelete": "确定删除玩家 {user} 在集合 {collection}（应用 {app}）中的对象 {key}（版本 {version}）？删除后无法恢复。",
  },
});

const permission = (p) => (t(`saves.perm.${p}`) === `saves.perm.${p}` ? p : t(`saves.perm.${p}`));

export async function render(root, { api, h, table, attempt, load, operator }) {
  const list = h("div", { id: "save-list" });
  const form = h(
    "form",
    { id: "save-player", onsubmit: (e) => { e.preventDefault(); show(); } },
    h("label", {}, t("saves.user"), h("input", { name: "userId", id: "save-user", required: true, size: 38 })),
    h("label", {}, t("saves.app"), h("input", { name: "app", id: "save-app", value: "default", size: 10 })),
    h("label", {}, t("saves.collection"), h("input", { name: "collection", id: "save-collection", required: true, size: 16 })),
    h("button", { type: "submit", id: "save-show" }, t("saves.show")),
  );
  const field = (name) => String(new FormData(form).get(name) || "");
  const canChange = operator.role === "support" || operator.role === "admin";
  const show = async (cursor) => {
    // The player and collection the rows belong to, fixed when they are shown (the form may be edited meanwhile).
    const userId = field("userId");
    const query = `app=${encodeURIComponent(field("app") || "default")}&collection=${encodeURIComponent(field("collection"))}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`;
    const page = await load(t("saves.load"), () => api("GET", `/saves/players/${encodeURIComponent(userId)}?${query}`));
    if (!page) return;
    const objectPath = (x, action) =>
      `/saves/players/${encodeURIComponent(userId)}/${encodeURIComponent(x.collection)}/${encodeURIComponent(x.key)}/${action}`;
    const effect = (x) => ({ user: userId, key: x.key, collection: x.collection, app: page.app, version: x.version });
    const edit = (x) => {
      const text = h("textarea", { rows: 6, cols: 60, "aria-label": t("saves.valueOf", { key: x.key }) });
      text.value = JSON.stringify(x.value, null, 2);
      const save = async (e) => {
        const near = e.currentTarget;
        const what = t("saves.saveOf", { key: x.key });
        let value;
        try {
          value = JSON.parse(text.value);
        } catch (err) {
          return attempt(what, () => Promise.reject(new Error(t("saves.notJson", { error: err.message }))), { near });
        }
        const confirm = t("saves.confirmSave", effect(x));
        await attempt(what, () => api("POST", objectPath(x, "edit"), { app: page.app, version: x.version, value }), { near, confirm, redraw: () => show(cursor) });
      };
      const remove = async (e) => {
        const confirm = t("saves.confirmDelete", effect(x));
        const what = t("saves.deleteOf", { key: x.key });
        await attempt(what, () => api("POST", objectPath(x, "delete"), { app: page.app, version: x.version }), { near: e.currentTarget, confirm, redraw: () => show(cursor) });
      };
      return [
        text,
        h("button", { type: "button", "aria-label": t("saves.saveOf", { key: x.key }), onclick: save }, t("saves.save")),
        h("button", { type: "button", className: "danger", "aria-label": t("saves.deleteOf", { key: x.key }), onclick: remove }, t("saves.delete")),
      ];
    };
    list.replaceChildren(
      table([
        { title: t("saves.key"), cell: (x) => x.key },
        { title: t("saves.version"), cell: (x) => String(x.version) },
        { title: t("saves.permissions"), cell: (x) => `${permission(x.permissionRead)} / ${permission(x.permissionWrite)}` },
        { title: t("saves.updated"), cell: (x) => formatTime(x.updatedAt) },
        { title: t("saves.value"), cell: (x) => (canChange ? edit(x) : h("pre", {}, JSON.stringify(x.value, null, 2))) },
      ], page.objects, t("saves.objects")),
      page.cursor ? h("button", { type: "button", onclick: () => show(page.cursor) }, t("saves.next")) : "",
    );
  };
  root.append(h("section", {}, h("h2", {}, t("saves.title")), form, list));
}
