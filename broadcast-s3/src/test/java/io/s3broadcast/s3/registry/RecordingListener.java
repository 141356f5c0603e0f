package io.s3broadcast.s3.registry;

import io.s3broadcast.registry.MembershipListener;
import io.s3broadcast.registry.NodeInfo;
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

    List<String> drain() {
        List<String> copy = List.copyOf(events);
        events.clear();
        return copy;
    }
}
