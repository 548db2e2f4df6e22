// Douyin live: the streamers live now (their live room, the game room serving it, viewers), a room's
// push tasks as Douyin reports them and what reached it per round, and a round's gift ledger (each
// gift once, by msg_id). Read-only: nothing here changes a stream.
import { addTexts, formatTime, t } from "../i18n.js";

addTexts({
  en: {
    "live.rooms": "Live rooms", "live.refresh": "Refresh", "live.roomsLoad": "Live rooms", "live.streamer": "Streamer", "live.liveRoom": "Live room",
    "live.gameRoom": "Game room", "live.noGameRoom": "none (the game has not joined)", "live.viewers": "Viewers", "live.round": "Round", "live.started": "Started",
    "live.show": "Show", "live.showRoom": "Show live room {room}", "live.roomLoad": "Live room", "live.roomTitle": "{streamer} — live room {room}",
    "live.tasks": "Push tasks", "live.type": "Message type", "live.status": "Status at Douyin",
    "live.status.running": "running", "live.status.not_started": "stopped", "live.status.not_found": "gone (stream ended or game unmounted)", "live.status.unknown": "could not ask Douyin",
    "live.type.live_comment": "comments", "live.type.live_gift": "gifts", "live.type.live_like": "likes", "live.type.live_fansclub": "fan club",
    "live.counts": "Counts per round", "live.gifts": "Gifts", "live.giftValue": "Gift value", "live.comments": "Comments", "live.likes": "Likes", "live.fansclub": "Fan-club events",
    "live.noRound": "outside rounds", "live.roundN": "#{n}", "live.running": "#{n} (running)", "live.ledger": "Gift ledger", "live.ledgerOf": "Gift ledger of round {round}",
    "live.ledgerLoad": "Gift ledger", "live.ledgerTitle": "Gift ledger — {round}", "live.time": "Received", "live.viewer": "Viewer", "live.gift": "Gift", "live.num": "Count",
    "live.value": "Value", "live.source": "Source", "live.source.push": "push", "live.source.failed_data": "failed-data query", "live.delivered": "Delivered to the game",
    "live.yes": "yes", "live.waiting": "waiting", "live.totals": "Totals per viewer", "live.fansclubEvent": "fan club", "live.none": "No streamer is live on this server now.",
  },
  "zh-CN": {
    "live.rooms": "直播间", "live.refresh": "刷新", "live.roomsLoad": "直播间", "live.streamer": "主播", "live.liveRoom": "直播间 ID",
    "live.gameRoom": "游戏房间", "live.noGameRoom": "无（游戏尚未加入）", "live.viewers": "观众数", "live.round": "对局", "live.started": "开始时间",
    "live.show": "查看", "live.showRoom": "查看直播间 {room}", "live.roomLoad": "直播间详情", "live.roomTitle": "{streamer} — 直播间 {room}",
    "live.tasks": "推送任务", "live.type": "消息类型", "live.status": "抖音侧状态",
    "live.status.running": "运行中", "live.status.not_started": "已停止", "live.status.not_found": "不存在（已关播或已取消挂载）", "live.status.unknown": "无法查询抖音",
    "live.type.live_comment": "评论", "live.type.live_gift": "礼物", "live.type.live_like": "点赞", "live.type.live_fansclub": "粉丝团",
    "live.counts": "每局统计", "live.gifts": "礼物数", "live.giftValue": "礼物价值", "live.comments": "评论数", "live.likes": "点赞数", "live.fansclub": "粉丝团事件",
    "live.noRound": "对局之外", "live.roundN": "第 {n} 局", "live.running": "第 {n} 局（进行中）", "live.ledger": "礼物流水", "live.ledgerOf": "第 {round} 局的礼物流水",
    "live.ledgerLoad": "礼物流水", "live.ledgerTitle": "礼物流水 — {round}", "live.time": "收到时间", "live.viewer": "观众", "live.gift": "礼物", "live.num": "数量",
    "live.value": "价值", "live.source": "来源", "live.source.push": "推送", "live.source.failed_data": "失败数据补查", "live.delivered": "已送达游戏",
    "live.yes": "是", "live.waiting": "等待中", "live.totals": "按观众汇总", "live.fansclubEvent": "粉丝团", "live.none": "本服务器当前没有主播在直播。",
  },
});

/** Douyin's values are in fen: shown in yuan. */
const yuan = (fen) => `¥${(Number(fen) / 100).toFixed(2)}`;
const roundName = (roundId, current) => (roundId === 0 ? t("live.noRound") : roundId === current ? t("live.running", { n: roundId }) : t("live.roundN", { n: roundId }));

export async function render(root, { api, h, table, load }) {
  const rooms = h("div", { id: "live-rooms" });
  const detail = h("div", { id: "live-room" });
  const ledger = h("div", { id: "live-ledger" });
  const path = (id) => `/douyin-live/rooms/${encodeURIComponent(id)}`;

  const showLedger = async (room, roundId) => {
    const l = await load(t("live.ledgerLoad"), () => api("GET", `${path(room.liveRoomId)}/rounds/${roundId}/gifts`));
    if (!l) return;
    ledger.replaceChildren(
      h("h3", {}, t("live.ledgerTitle", { round: roundName(roundId, room.currentRound) })),
      table([
        { title: t("live.time"), cell: (e) => formatTime(e.receivedAt) },
        { title: t("live.viewer"), cell: (e) => `${e.nickname || "—"} (${e.secOpenid})` },
        { title: t("live.gift"), cell: (e) => (e.kind === "gift" ? e.secGiftId : t("live.fansclubEvent")) },
        { title: t("live.num"), cell: (e) => String(e.giftNum) },
        { title: t("live.value"), cell: (e) => yuan(e.valueFen) },
        { title: t("live.source"), cell: (e) => t(`live.source.${e.source}`) },
        { title: t("live.delivered"), cell: (e) => (e.delivered ? t("live.yes") : t("live.waiting")) },
      ], l.entries, t("live.ledger")),
      h("h3", {}, t("live.totals")),
      table([
        { title: t("live.viewer"), cell: (v) => `${v.nickname || "—"} (${v.secOpenid})` },
        { title: t("live.num"), cell: (v) => String(v.giftNum) },
        { title: t("live.value"), cell: (v) => yuan(v.valueFen) },
      ], l.totals, t("live.totals")),
    );
  };

  const showRoom = async (liveRoomId) => {
    const r = await load(t("live.roomLoad"), () => api("GET", path(liveRoomId)));
    if (!r) return;
    ledger.replaceChildren();
    detail.replaceChildren(
      h("h3", {}, t("live.roomTitle", { streamer: r.nickName || r.anchorOpenId, room: r.liveRoomId })),
      h("h4", {}, t("live.tasks")),
      table([
        { title: t("live.type"), cell: (x) => t(`live.type.${x.msgType}`) },
        { title: t("live.status"), cell: (x) => t(`live.status.${x.status}`) },
      ], r.taskStatus, t("live.tasks")),
      h("h4", {}, t("live.counts")),
      table([
        { title: t("live.round"), cell: (x) => roundName(x.roundId, r.currentRound) },
        { title: t("live.gifts"), cell: (x) => String(x.counts.gift) },
        { title: t("live.giftValue"), cell: (x) => yuan(x.counts.giftValueFen) },
        { title: t("live.comments"), cell: (x) => String(x.counts.comment) },
        { title: t("live.likes"), cell: (x) => String(x.counts.like) },
        { title: t("live.fansclub"), cell: (x) => String(x.counts.fansclub) },
        { title: "", cell: (x) => h("button", { type: "button", "data-round": x.roundId, "aria-label": t("live.ledgerOf", { round: roundName(x.roundId, r.currentRound) }), onclick: () => showLedger(r, x.roundId) }, t("live.ledger")) },
      ], r.rounds, t("live.counts")),
    );
  };

  const loadRooms = async () => {
    const list = await load(t("live.roomsLoad"), () => api("GET", "/douyin-live/rooms"));
    if (!list) return;
    rooms.replaceChildren(list.rooms.length === 0 ? h("p", {}, t("live.none")) : table([
      { title: t("live.streamer"), cell: (x) => x.nickName || x.anchorOpenId },
      { title: t("live.liveRoom"), cell: (x) => x.liveRoomId },
      { title: t("live.gameRoom"), cell: (x) => x.gameRoomId ?? t("live.noGameRoom") },
      { title: t("live.viewers"), cell: (x) => String(x.viewers) },
      { title: t("live.round"), cell: (x) => roundName(x.currentRound, x.currentRound) },
      { title: t("live.started"), cell: (x) => (x.startedAt ? formatTime(x.startedAt) : "—") },
      { title: "", cell: (x) => h("button", { type: "button", "data-room": x.liveRoomId, "aria-label": t("live.showRoom", { room: x.liveRoomId }), onclick: () => showRoom(x.liveRoomId) }, t("live.show")) },
    ], list.rooms, t("live.rooms")));
  };

  root.append(
    h("section", {}, h("h2", {}, t("live.rooms")), h("button", { type: "button", id: "live-refresh", onclick: () => loadRooms() }, t("live.refresh")), rooms),
    h("section", {}, detail, ledger),
  );
  await loadRooms();
}
