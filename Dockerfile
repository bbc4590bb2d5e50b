# keystorm in a container: the web UI built with Node, the binary with Rust, and a
# slim runtime image. Used by docker-compose.yml.
FROM node:20-bookworm AS web
WORKDIR /src
COPY package.json package-lock.json ./
COPY web/package.json web/
RUN npm ci --no-audit --no-fund
COPY web web
COPY docs/openapi.json docs/openapi.json
RUN npm run build

FROM rust:1.95-bookworm AS build
WORKDIR /src
COPY . .
COPY --from=web /src/web/dist web/dist
COPY --from=web /src/web/dist-report web/dist-report
RUN cargo build --release --locked -p keystorm

FROM debian:bookworm-slim
RUN apt-get update && apt-get install -y --no-install-recommends ca-certificates && rm -rf /var/lib/apt/lists/*
COPY --from=build /src/target/release/keystorm /usr/local/bin/keystorm
COPY workloads /workloads
VOLUME ["/results"]
EXPOSE 7878
ENTRYPOINT ["keystorm"]
# Beyond loopback the controller serves HTTPS: mount the certificate and key at /tls.
CMD ["serve", "--bind", "0.0.0.0", "--tls-cert", "/tls/tls.crt", "--tls-key", "/tls/tls.key", "--workloads", "/workloads", "--results", "/results"]
