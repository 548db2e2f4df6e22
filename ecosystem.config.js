// pm2 process file. Fork mode: Colyseus processes must not share a port through pm2's cluster mode.
// @colyseus/tools' listen() gives each process PORT + NODE_APP_INSTANCE, so no increment_var here.
const os = require("os");

module.exports = {
  apps: [
    {
      name: "minigame-server",
      script: "build/src/index.js",
      exec_mode: "fork",
      instances: Number(process.env.INSTANCES) || os.cpus().length,
      wait_ready: true,
      listen_timeout: 15000,
      kill_timeout: 15000,
      time: true,
      watch: false,
      env_production: { NODE_ENV: "production" },
    },
  ],
};
