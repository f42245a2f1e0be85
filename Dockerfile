# syntax=docker/dockerfile:1
# The headless gateway as a container (README: "Run in a container").
#   docker build -t gateway .
#   docker run -d --init -p 8080:8080 -v gateway-data:/data gateway
# Node 22 (active LTS) runs it; the product is also tested on Node 20.19+ (docs/decisions/0203-container-node-22-floor-node-20.md).

# 1. Build: the whole dev toolchain, `npm run build` (server bundle + web admin), `npm pack`.
FROM node:22-bookworm AS build
WORKDIR /src
ENV ELECTRON_SKIP_BINARY_DOWNLOAD=1
COPY package.json package-lock.json ./
# No install scripts: the sources are not copied yet, and the build stage needs no sqlite3 binary.
RUN npm ci --no-audit --no-fund --ignore-scripts
COPY . .
RUN npm run build && mkdir /artifact && npm pack --ignore-scripts --pack-destination /artifact

# 2. Install: the packed artifact with production dependencies only, by the same script the
# packed-install test runs. This image has python3, make and g++ for sqlite3's source build,
# used when its prebuilt binary cannot be downloaded.
FROM node:22-bookworm AS install
COPY deploy/install-artifact.sh /tmp/install-artifact.sh
COPY --from=build /artifact/ /tmp/artifact/
RUN sh /tmp/install-artifact.sh /opt/gateway /tmp/artifact/gateway-*.tgz

# 3. Run: slim Node, the installed artifact (native sqlite3 included), a non-root user, /data.
FROM node:22-bookworm-slim
ENV NODE_ENV=production \
    GATEWAY_DATA_DIR=/data \
    GATEWAY_SERVICE=1
COPY --from=install /opt/gateway /opt/gateway
RUN mkdir -p /data && chown node:node /data
# The image's unprivileged `node` user (uid 1000).
USER node
VOLUME ["/data"]
EXPOSE 8080
# SPEC §4: liveness and readiness, no auth. GATEWAY_PORT when the port is not the default.
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.GATEWAY_PORT||8080)+'/GWENDPOINTAPI/_health').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
# The gateway handles SIGTERM itself as PID 1 (graceful stop within 10 s, SPEC §10) and starts
# no child processes; `docker run --init` (compose: `init: true`) adds tini for zombie reaping.
# --v8-pool-size=0: V8's helper threads fitted to the cores the container may use (decision 0421).
ENTRYPOINT ["node", "--v8-pool-size=0", "/opt/gateway/node_modules/gateway/bin/gateway.js"]
CMD ["serve"]
