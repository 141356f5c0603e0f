package io.s3broadcast.bench.chaos;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.List;

/**
 * 300 half-open connections to the first node while it waits for the others: half send nothing, half send 20 of a
 * handshake's bytes. Every one must be closed within the handshake timeout (plus a grace); then the other nodes
 * start and the broadcast must finish byte-exact.
 */
final class HalfOpenScenario implements ChaosScenario {

    static final int CONNECTIONS = 300;
    static final long GRACE_MILLIS = 2_000;

    @Override
    public String name() {
        return "half-open";
    }

    @Override
    public String description() {
        return CONNECTIONS + " connections that send nothing or 20 bytes of a handshake; all must be closed in time";
    }

    @Override
    public ChaosResult run(ChaosContext c) throws Exception {
        long start = System.nanoTime();
        int nodes = Math.max(2, c.nodes());
        try (NodeFleet fleet = c.fleet(name(), nodes)) {
            fleet.env("S3BROADCAST_SECRET", StrangerScenario.randomSecret());
            fleet.start(0);
            fleet.awaitListening(0);
            int port = fleet.ports().get(0);
            byte[] partial = partialHandshake(AttackLoop.group(c));
            List<SocketChannel> open = new ArrayList<>();
            int refused = 0;
            try (Selector selector = Selector.open()) {
                for (int i = 0; i < CONNECTIONS; i++) {
                    try {
                        SocketChannel ch = SocketChannel.open(new InetSocketAddress(NodeFleet.LOOPBACK, port));
                        if (i % 2 == 1) {
                            ch.write(ByteBuffer.wrap(partial));
                        }
                        ch.configureBlocking(false);
                        ch.register(selector, SelectionKey.OP_READ);
                        open.add(ch);
                    } catch (IOException e) {
                        refused++;
                    }
                }
                long opened = System.nanoTime();
                long deadline = opened + c.handshakeTimeout().toNanos() + GRACE_MILLIS * 1_000_000;
                long lastClose = opened;
                ByteBuffer sink = ByteBuffer.allocate(4096);
                while (!open.isEmpty() && System.nanoTime() < deadline) {
                    selector.select(Math.max(1, (deadline - System.nanoTime()) / 1_000_000));
                    for (SelectionKey k : selector.selectedKeys()) {
                        SocketChannel ch = (SocketChannel) k.channel();
                        int n;
                        try {
                            sink.clear();
                            n = ch.read(sink);
                        } catch (IOException e) {
                            n = -1;
                        }
                        if (n < 0) {
                            k.cancel();
                            ch.close();
                            open.remove(ch);
                            lastClose = System.nanoTime();
                        }
                    }
                    selector.selectedKeys().clear();
                }
                int heldOpen = open.size();
                for (SocketChannel ch : open) {
                    ch.close();
                }
                for (int i = 1; i < nodes; i++) {
                    fleet.start(i);
                }
                StringBuilder notes = new StringBuilder();
                boolean exact = fleet.awaitByteExact(notes);
                notes.append(CONNECTIONS - refused).append(" connections opened, the last closed ")
                        .append((lastClose - opened) / 1_000_000).append(" ms after opening (handshake timeout ")
                        .append(c.handshakeTimeout().toMillis()).append(" ms); ")
                        .append(fleet.logLines(0, "unauthenticated connection")).append(" log lines about them");
                return ChaosResult.of(name(), nodes, c.size(), CONNECTIONS - refused, 0, 0, 0, heldOpen, exact,
                        fleet.honestConnectionsRefused(), (System.nanoTime() - start) / 1e9, notes.toString());
            }
        }
    }

    /** The first 20 bytes of a real handshake frame for the group. */
    private static byte[] partialHandshake(String group) {
        byte[] g = group.getBytes(java.nio.charset.StandardCharsets.UTF_8);
        ByteBuffer b = ByteBuffer.allocate(20);
        b.putInt(1 + 41 + g.length + 8).put((byte) 0x20).putInt(0x53334243).putShort((short) 2).put((byte) 1);
        while (b.hasRemaining()) {
            b.put((byte) 7); // the start of the nonce
        }
        return b.array();
    }
}
