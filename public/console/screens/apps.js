// Apps and settings: ids and switches, never a secret.
import { addTexts, t } from "../i18n.js";

addTexts({
  en: { "apps.apps": "Apps", "apps.app": "App", "apps.platforms": "Platforms", "apps.refunds": "payments, refunds", "apps.noRefunds": "payments, no refunds", "apps.settings": "Settings" },
  "zh-CN": { "apps.apps": "应用", "apps.app": "应用", "apps.platforms": "平台", "apps.refunds": "支付，可退款", "apps.noRefunds": "支付，不可退款", "apps.settings": "配置" },
});

export async function render(root, { api, h, table, load }) {
  const data = await load(t("apps.apps"), () => api("GET", "/apps"));
  if (!data) return;
  root.append(
    h("section", {}, h("h2", {}, t("apps.apps")),
      table(
        [{ title: t("apps.app"), cell: (a) => a.key }, { title: t("apps.platforms"), cell: (a) => a.platforms.map((p) => `${p.platform} ${p.appId}${p.payments ? ` (${t(p.refunds ? "apps.refunds" : "apps.noRefunds")})` : ""}`).join(", ") }],
        data.apps,
        t("apps.apps"),
      )),
    h("section", {}, h("h2", {}, t("apps.settings")), h("pre", { id: "settings" }, JSON.stringify(data.settings, null, 2))),
  );
}
