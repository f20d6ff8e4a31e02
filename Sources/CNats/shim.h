// The NATS C client ("cnats", Debian libnats-dev 3.4.x): JetStream, key-value, request/reply.
#include <nats/nats.h>
