/**
 * Experiment (issue 56, "JSON encoding of the answer"): what encoding a login's answer costs with
 * JSON.stringify (what the server does) beside a serializer written for the answer's fixed shape
 * (each string still escaped by JSON.stringify, the rest concatenated: what fast-json-stringify and
 * similar schema compilers generate). The answer is a WeChat login's as the server sends it (two
 * tokens, the user with its platforms). `node --import tsx bench/experiments/answer-encoding.ts`
 */
const token = (n: number) => `eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.${"eyJzdWIiOiIwMTkzYjQ2Ni0wMDAwLTQwMDAtODAwMC0wMDAwMDAwMDAwMDEiLCJzaWQiOiJhYmNkZWYiLCJ0eXAiOiJhY2Nlc3MifQ".slice(0, 120 + n)}.c2lnbmF0dXJlLW9mLXRoZS10b2tlbi0wMTIzNDU2Nzg5`;

function answer(i: number) {
  return {
    success: true,
    message: "Login successful",
    data: {
      openid: `oPlayer${i}abcdefghijklmnopq`,
      unionid: `oUnion${i}abcdefghijklmnopqr`,
      token: token(i % 7),
      refreshToken: token((i + 3) % 7),
      expiresIn: 7200,
      user: {
        id: `0193b466-0000-4000-8000-${String(i).padStart(12, "0")}`,
        username: `wx_${i}abcdefgh`,
        nickname: null as string | null,
        avatarUrl: null as string | null,
        createdAt: "2026-11-29T08:00:00.000Z",
        lastLoginAt: "2026-11-29T08:30:00.000Z",
        platforms: ["wechat"],
      },
    },
  };
}
type Answer = ReturnType<typeof answer>;

const s = JSON.stringify;
/** The fixed-shape serializer: the keys and punctuation are constants, every value goes through the same rules as JSON.stringify. */
function encodeLogin(a: Answer): string {
  const d = a.data;
  const u = d.user;
  return (
    `{"success":${a.success},"message":${s(a.message)},"data":{"openid":${s(d.openid)},"unionid":${s(d.unionid)},"token":${s(d.token)},"refreshToken":${s(d.refreshToken)},"expiresIn":${d.expiresIn},` +
    `"user":{"id":${s(u.id)},"username":${s(u.username)},"nickname":${s(u.nickname)},"avatarUrl":${s(u.avatarUrl)},"createdAt":${s(u.createdAt)},"lastLoginAt":${s(u.lastLoginAt)},"platforms":${s(u.platforms)}}}}`
  );
}

const N = Number(process.env.N ?? 200_000);
const answers = Array.from({ length: 1000 }, (_, i) => answer(i));
for (const a of answers) if (encodeLogin(a) !== JSON.stringify(a)) throw new Error("the fixed-shape serializer differs from JSON.stringify");
let sink = 0;
for (let rep = 0; rep < 3; rep++) {
  for (const [label, encode] of [
    ["JSON.stringify", (a: Answer) => JSON.stringify(a)],
    ["fixed-shape serializer", encodeLogin],
  ] as const) {
    const started = process.hrtime.bigint();
    for (let i = 0; i < N; i++) sink += encode(answers[i % answers.length]).length;
    const ns = Number(process.hrtime.bigint() - started) / N;
    console.log(`${label}: ${(ns / 1000).toFixed(2)} µs per answer (${answers[0] && JSON.stringify(answers[0]).length} bytes)`);
  }
}
if (sink === 0) console.log("");
