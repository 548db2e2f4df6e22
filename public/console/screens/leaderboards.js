// Leaderboards: an app's boards, a player's records; an admin removes a record, bans the player
// from a board (which removes their current record too), lifts a ban, or resets a board (its period
// ends now and the next starts). Each removal, ban and reset is confirmed first.
import { addTexts, formatTime, t } from "../i18n.js";

addTexts({
  en: {
    "boards.title": "Boards", "boards.load": "Boards", "boards.app": "App", "boards.show": "Show boards", "boards.board": "Board", "boards.period": "Period",
    "boards.periodText": "#{seq}, ends {ends}", "boards.records": "Records", "boards.reset": "Reset", "boards.resetOf": "Reset {board}",
    "boards.confirmReset": "Reset board {board} (app {app})? Its current period ends now ({records} records), the ended period's rewards are paid and the next period starts.",
    "boards.player": "A player's records", "boards.user": "Player's user id", "boards.showRecords": "Show records", "boards.recordsLoad": "Records",
    "boards.score": "Score", "boards.name": "Name", "boards.updated": "Updated", "boards.remove": "Remove", "boards.removeOn": "Remove record on {board}",
    "boards.ban": "Ban", "boards.banFrom": "Ban from {board}", "boards.playerRecords": "Player's records",
    "boards.confirmRemove": "Remove {user}'s record ({score}) from board {board}?",
    "boards.confirmBan": "Ban player {user} from board {board}? Their record ({score}) is removed and their later scores are refused.",
    "boards.unbanFrom": "Lift the player's ban from", "boards.unban": "Unban", "boards.unbanOf": "Unban on {board}",
  },
  "zh-CN": {
    "boards.title": "排行榜", "boards.load": "排行榜", "boards.app": "应用", "boards.show": "查看排行榜", "boards.board": "排行榜", "boards.period": "周期",
    "boards.periodText": "第 {seq} 期，{ends} 结束", "boards.records": "记录数", "boards.reset": "重置", "boards.resetOf": "重置 {board}",
    "boards.confirmReset": "确定重置应用 {app} 的排行榜 {board}？当前周期（{records} 条记录）立即结束并发放该期奖励，随后开始新一期。",
    "boards.player": "玩家的排行榜记录", "boards.user": "玩家用户 ID", "boards.showRecords": "查看记录", "boards.recordsLoad": "记录",
    "boards.score": "分数", "boards.name": "名称", "boards.updated": "更新时间", "boards.remove": "删除", "boards.removeOn": "删除 {board} 上的记录",
    "boards.ban": "封禁", "boards.banFrom": "从 {board} 封禁", "boards.playerRecords": "玩家的记录",
    "boards.confirmRemove": "确定删除玩家 {user} 在排行榜 {board} 上的记录（{score} 分）？",
    "boards.confirmBan": "确定禁止玩家 {user} 上排行榜 {board}？其记录（{score} 分）将被删除，之后提交的分数也会被拒绝。",
    "boards.unbanFrom": "解除该玩家在以下排行榜的封禁", "boards.unban": "解封", "boards.unbanOf": "解封 {board}",
  },
});

export async function render(root, { api, h, table, attempt, load, operator }) {
  const appInput = h("input", { id: "boards-app", value: "default", size: 10 });
  const boards = h("div", { id: "board-list" });
  const records = h("div", { id: "board-records" });
  const app = () => appInput.value || "default";
  const unbanBoard = h("select", { name: "boardId", id: "unban-board" });
  const loadBoards = async () => {
    const b = await load(t("boards.load"), () => api("GET", `/leaderboards?app=${encodeURIComponent(app())}`));
    if (!b) return;
    unbanBoard.replaceChildren(...b.boards.map((x) => h("option", { value: x.id }, x.id)));
    boards.replaceChildren(table([
      { title: t("boards.board"), cell: (x) => x.id },
      { title: t("boards.period"), cell: (x) => (x.period ? t("boards.periodText", { seq: x.period.seq ?? "", ends: formatTime(x.period.endsAt) }) : "—") },
      { title: t("boards.records"), cell: (x) => String(x.records) },
      { title: "", cell: (x) => operator.role === "admin"
        ? h("button", { type: "button", className: "danger", "aria-label": t("boards.resetOf", { board: x.id }), onclick: async (e) => {
          const confirm = t("boards.confirmReset", { board: x.id, app: app(), records: x.records });
          if (await attempt(t("boards.resetOf", { board: x.id }), () => api("POST", `/leaderboards/${encodeURIComponent(x.id)}/reset`, { app: app() }), { near: e.currentTarget, confirm })) await loadBoards();
        } }, t("boards.reset"))
        : null },
    ], b.boards, t("boards.title")));
  };
  const loadRecords = async (userId) => {
    const r = await load(t("boards.recordsLoad"), () => api("GET", `/leaderboards/players/${encodeURIComponent(userId)}?app=${encodeURIComponent(app())}`));
    if (!r) return;
    const change = (what, rec, label, confirmKey) => async (e) => {
      const confirm = t(confirmKey, { user: userId, board: rec.board, score: rec.score });
      const done = await attempt(label, () => api("POST", `/leaderboards/${encodeURIComponent(rec.board)}/players/${encodeURIComponent(userId)}/${what}`, { app: app() }), { near: e.currentTarget, confirm });
      if (done) { await loadRecords(userId); await loadBoards(); }
    };
    records.replaceChildren(table([
      { title: t("boards.board"), cell: (x) => x.board },
      { title: t("boards.period"), cell: (x) => String(x.period) },
      { title: t("boards.score"), cell: (x) => String(x.score) },
      { title: t("boards.name"), cell: (x) => x.name },
      { title: t("boards.updated"), cell: (x) => formatTime(x.updatedAt) },
      { title: "", cell: (x) => operator.role === "admin" ? [
        h("button", { type: "button", "aria-label": t("boards.removeOn", { board: x.board }), onclick: change("remove", x, t("boards.removeOn", { board: x.board }), "boards.confirmRemove") }, t("boards.remove")),
        h("button", { type: "button", className: "danger", "aria-label": t("boards.banFrom", { board: x.board }), onclick: change("ban", x, t("boards.banFrom", { board: x.board }), "boards.confirmBan") }, t("boards.ban")),
      ] : null },
    ], r.records, t("boards.playerRecords")));
  };
  const playerForm = h(
    "form",
    { id: "board-player", onsubmit: (e) => { e.preventDefault(); loadRecords(new FormData(playerForm).get("userId")); } },
    h("label", {}, t("boards.user"), h("input", { name: "userId", id: "board-user", required: true, size: 38 })),
    h("button", { type: "submit", id: "board-show-records" }, t("boards.showRecords")),
  );
  const unbanForm = h(
    "form",
    { id: "unban-form", onsubmit: async (e) => {
      e.preventDefault();
      const userId = new FormData(playerForm).get("userId");
      if (!userId) return playerForm.reportValidity();
      const path = `/leaderboards/${encodeURIComponent(unbanBoard.value)}/players/${encodeURIComponent(userId)}/unban`;
      if (await attempt(t("boards.unbanOf", { board: unbanBoard.value }), () => api("POST", path, { app: app() }), { near: unbanForm })) await loadRecords(userId);
    } },
    h("label", {}, t("boards.unbanFrom"), unbanBoard),
    h("button", { type: "submit", id: "unban-submit" }, t("boards.unban")),
  );
  root.append(
    h("section", {}, h("h2", {}, t("boards.title")), h("form", { onsubmit: (e) => { e.preventDefault(); loadBoards(); } }, h("label", {}, t("boards.app"), appInput), h("button", { type: "submit" }, t("boards.show"))), boards),
    h("section", {}, h("h2", {}, t("boards.player")), playerForm, records, operator.role === "admin" ? unbanForm : null),
  );
  await loadBoards();
}
