// pm2 process file: `npm run build && npx pm2 start ecosystem.config.js --env production`.
// Fork mode: Colyseus processes must not share a port through pm2's cluster mode.
// @colyseus/tools' listen() gives each process PORT + NODE_APP_INSTANCE, so no increment_var here.
// All other settings come from arena.env (loaded by the server in production) or the environment.
const os = require("os");

// The process count is a setting (INSTANCES, default: one per core). It is handed to every process
// too, so the server can refuse what breaks with several processes (in-memory cache, SQLite).
const instances = Number(process.env.INSTANCES) || os.cpus().length;

module.exports = {
  apps: [
    {
      name: "minigame-server",
      script: "build/src/index.js",
      exec_mode: "fork",
      instances,
      wait_ready: true,
      listen_timeout: 20000,
      // Longer than SHUTDOWN_TIMEOUT_MS (10 s) plus the accept window, so pm2 never kills a drain.
      kill_timeout: 15000,
      time: true,
      watch: false,
      env: { INSTANCES: String(instances) },
      env_production: { NODE_ENV: "production", INSTANCES: String(instances) },
    },
  ],
};
