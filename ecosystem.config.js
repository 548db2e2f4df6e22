// pm2 process file. Start with `npm run start:prod` (build, settings check, start, wait until ready);
// `npx pm2 reload minigame-server` restarts without downtime.
// Fork mode: Colyseus processes must not share a port through pm2's cluster mode.
// @colyseus/tools' listen() gives each process PORT + NODE_APP_INSTANCE, so no increment_var here.
const path = require("path");

// Settings are read by the server's own loader (arena.env < arena.local.env < environment), so
// INSTANCES set in either file counts here as it does in the server. It lives in the build.
let settingsFiles;
try {
  settingsFiles = require(path.join(__dirname, "build/src/config/settings-files.js"));
} catch (err) {
  throw new Error(`ecosystem.config.js needs the build: run \`npm run build\` (npm run start:prod does). ${err.message}`);
}
const settings = settingsFiles.readSettings({ ...process.env, NODE_ENV: "production" }, __dirname);

// The process count (INSTANCES, default: one per core) is handed to every process too, so the
// server can refuse what breaks with several processes (in-memory cache, SQLite).
const instances = settingsFiles.processCount(settings);

module.exports = {
  apps: [
    {
      name: "minigame-server",
      script: "build/src/server/index.js",
      cwd: __dirname,
      exec_mode: "fork",
      instances,
      wait_ready: true,
      listen_timeout: 20000,
      // Longer than SHUTDOWN_TIMEOUT_MS, so pm2 never kills a drain.
      kill_timeout: settingsFiles.pm2KillTimeoutMs(settings),
      time: true,
      watch: false,
      env: { INSTANCES: String(instances) },
      env_production: { NODE_ENV: "production", INSTANCES: String(instances) },
    },
  ],
};
