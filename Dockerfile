# The server as a container image: a static binary (no cgo) on distroless, run as a non-root user.
#   docker build -t singletable .
#   docker compose up --build      # with DynamoDB Local, the table and sample data (compose.yaml)
# The image listens on PORT (8080) and serves /metrics (and /debug/pprof/ with PPROF=true) on
# ADMIN_ADDR (0.0.0.0:9090 here, so that a port mapping can reach it: publish it only to trusted
# networks).

FROM golang:1.26-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
# The same command as `make build` (a test keeps the two in step).
RUN CGO_ENABLED=0 go build -trimpath -ldflags="-s -w" -o /out/server ./cmd/server

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/server /server
USER 65532:65532
ENV PORT=8080 ADMIN_ADDR=0.0.0.0:9090 HOST=0.0.0.0
EXPOSE 8080 9090
# distroless has no shell or curl: the binary checks its own /healthz.
HEALTHCHECK --interval=15s --timeout=5s --start-period=20s --retries=3 CMD ["/server", "-healthcheck"]
ENTRYPOINT ["/server"]
