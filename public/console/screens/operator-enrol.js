// What an admin sees once after adding or resetting an operator: the one-time password and, with a
// second factor, the QR code of the otpauth link to scan; a code from the authenticator confirms it.
import { addTexts, t } from "../i18n.js";

addTexts({
  en: {
    "enrol.title": "Sign-in details for {name}", "enrol.password": "One-time password (they replace it at first sign-in)",
    "enrol.once": "Shown only now: hand it over in person or over a channel you trust, then leave this screen.",
    "enrol.scan": "Scan this QR code with an authenticator app (Google Authenticator, Microsoft Authenticator, 腾讯身份验证器…)",
    "enrol.qr": "QR code of {name}'s second factor", "enrol.link": "Or enter this link in the app",
    "enrol.code": "Code the authenticator shows now", "enrol.confirm": "Confirm the second factor", "enrol.confirmOf": "Confirm {name}'s second factor",
    "enrol.confirmed": "Confirmed: {name}'s authenticator gives the right codes.", "enrol.noTotp": "No second factor: they sign in with the password alone.",
  },
  "zh-CN": {
    "enrol.title": "{name} 的登录信息", "enrol.password": "一次性密码（首次登录时须修改）",
    "enrol.once": "仅显示这一次：请当面或通过可信渠道交给对方，然后离开此页面。",
    "enrol.scan": "请用身份验证器 App（腾讯身份验证器、Google Authenticator、Microsoft Authenticator 等）扫描此二维码",
    "enrol.qr": "{name} 的二次验证二维码", "enrol.link": "或在 App 中输入此链接",
    "enrol.code": "验证器当前显示的验证码", "enrol.confirm": "确认二次验证", "enrol.confirmOf": "确认 {name} 的二次验证",
    "enrol.confirmed": "已确认：{name} 的验证器生成的验证码正确。", "enrol.noTotp": "未启用二次验证：仅凭密码登录。",
  },
});

/** The panel for `credentials` (the answer of add or reset); `post` calls an operator's route. */
export function enrolPanel(h, attempt, credentials, post) {
  const { operator } = credentials;
  const parts = [
    h("h3", {}, t("enrol.title", { name: operator.name })),
    h("p", {}, t("enrol.once")),
    h("p", {}, h("span", {}, t("enrol.password")), " ", h("code", { class: "one-time-password" }, credentials.initialPassword)),
  ];
  if (credentials.totpQr) {
    const code = h("input", { name: "code", inputmode: "numeric", autocomplete: "one-time-code", pattern: "[0-9]{6}", maxlength: "6", required: true, "aria-label": t("enrol.code") });
    const outcome = h("p", { class: "enrol-outcome", role: "status" });
    const form = h("form", { onsubmit: async (e) => {
      e.preventDefault();
      const done = await attempt(t("enrol.confirmOf", { name: operator.name }), () => post(operator, "totp/confirm", { code: code.value.trim() }), { near: e.currentTarget.querySelector("button") });
      if (done) outcome.textContent = t("enrol.confirmed", { name: operator.name });
    } }, h("label", {}, t("enrol.code"), " ", code), " ", h("button", { type: "submit" }, t("enrol.confirm")));
    parts.push(
      h("p", {}, t("enrol.scan")),
      h("img", { class: "totp-qr", src: credentials.totpQr, alt: t("enrol.qr", { name: operator.name }), width: "240", height: "240" }),
      h("p", {}, t("enrol.link"), " ", h("code", { class: "totp-uri" }, credentials.totpUri)),
      form,
      outcome,
    );
  } else if (!operator.totp) parts.push(h("p", {}, t("enrol.noTotp")));
  return h("section", { class: "enrolment", "aria-live": "polite" }, ...parts);
}
