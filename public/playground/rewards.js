// The playground's Rewards panel (docs/economy-rewards.md): a rewarded ad watched to its end turning
// into a reward (client.watchAd, with the embedded simulator playing WeChat's verified callback), and
// the player's mail with its attachments claimed once (client.mail, client.claim).
(function () {
  "use strict";

  const { $, setStatus, logEvent, events } = window.Playground;
  const state = { client: null };

  function describeError(err) {
    return (err.code ? (err.status ? err.status + " " : "") + err.code + ": " : "") + err.message;
  }

  /** The ad "shown" by the simulator: the player watches it to the end, then WeChat's ad server calls the server back. */
  async function simulatedAd(client, ad) {
    const custom = JSON.parse(ad.verification.customData);
    const response = await fetch("/playground/simulator/ad-reward", {
      method: "POST",
      headers: { "content-type": "application/json", authorization: "Bearer " + client.session.token },
      body: JSON.stringify({ adUnitId: ad.adUnitId, watchId: custom.watchId }),
    });
    const envelope = await response.json().catch(() => ({ message: "HTTP " + response.status, data: {} }));
    if (!response.ok) throw Object.assign(new Error(envelope.message), { status: response.status, code: envelope.data && envelope.data.code });
    logEvent("simulator: ad " + ad.adUnitId + " watched, transaction " + envelope.data.transactionId + "; waiting for the verified callback");
    return { ended: true };
  }

  async function act(label, action) {
    const buttons = document.querySelectorAll("#rewards-panel button");
    buttons.forEach((b) => (b.disabled = true));
    setStatus($("reward-status"), label + "…");
    try {
      setStatus($("reward-status"), await action(), "ok");
    } catch (err) {
      setStatus($("reward-status"), describeError(err), "error");
      logEvent(label + " failed: " + (err.code || err.message));
    } finally {
      buttons.forEach((b) => (b.disabled = false));
    }
  }

  async function showMail() {
    const list = await state.client.mail();
    const ul = $("mail-list");
    ul.textContent = "";
    for (const mail of list) {
      const li = document.createElement("li");
      li.dataset.mailId = mail.mailId;
      li.textContent = mail.title + " — " + JSON.stringify(mail.attachments) + (mail.claimed ? " (claimed)" : " ");
      if (!mail.claimed) {
        const button = document.createElement("button");
        button.type = "button";
        button.textContent = "Claim";
        button.addEventListener("click", () =>
          act("Claiming", async () => {
            const result = await state.client.claim(mail.mailId);
            logEvent("mail " + mail.mailId + ": " + (result.granted ? "granted" : "already claimed") + ", balances " + JSON.stringify(result.balances));
            await showMail();
            return (result.granted ? "Claimed: " : "Already claimed: ") + JSON.stringify(result.balances);
          }),
        );
        li.appendChild(button);
      }
      ul.appendChild(li);
    }
    return list.length + " mail";
  }

  $("ad-form").addEventListener("submit", (event) => {
    event.preventDefault();
    act("Watching the ad", async () => {
      const reward = await state.client.watchAd($("ad-unit").value.trim(), { show: (ad) => simulatedAd(state.client, ad), timeoutMs: 30000, intervalMs: 500 });
      $("ad-reward").textContent = JSON.stringify(reward, null, 2);
      logEvent("ad " + reward.adUnitId + " rewarded: balances " + JSON.stringify(reward.balances));
      return "Reward landed: " + JSON.stringify(reward.balances);
    });
  });
  $("mail-refresh").addEventListener("click", () => act("Reading mail", showMail));

  events.addEventListener("login", (event) => {
    state.client = event.detail.client;
    $("rewards-panel").hidden = false;
    $("ad-reward").textContent = "–";
    $("mail-list").textContent = "";
    setStatus($("reward-status"), "");
  });
  events.addEventListener("logout", () => {
    state.client = null;
    $("rewards-panel").hidden = true;
  });
})();
