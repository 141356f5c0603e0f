package io.s3broadcast.registry;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** Writes down each event as {@code +id} or {@code -id}. */
final class RecordingListener implements MembershipListener {

    final List<String> events = new CopyOnWriteArrayList<>();

    @Override
    public void joined(NodeInfo node) {
        events.add("+" + node.nodeId());
    }

    @Override
    public void left(NodeInfo node) {
        events.add("-" + node.nodeId());
    }
}
