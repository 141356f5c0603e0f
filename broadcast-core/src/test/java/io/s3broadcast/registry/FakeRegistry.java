package io.s3broadcast.registry;

import java.util.ArrayList;
import java.util.List;

/** A registry whose store is the test: it reports what the test tells it. */
final class FakeRegistry extends AbstractNodeRegistry {

    final List<String> calls = new ArrayList<>();

    FakeRegistry() {
        super(GroupId.of("bucket", "key", "etag"));
    }

    void join(NodeInfo node) {
        memberJoined(node);
    }

    void drop(String nodeId) {
        memberLeft(nodeId);
    }

    void view(List<NodeInfo> nodes) {
        replaceMembers(nodes);
    }

    @Override
    protected void doStart() {
        calls.add("start");
    }

    @Override
    protected NodeInfo doRegister(NodeInfo node) {
        calls.add("register " + node.nodeId());
        memberJoined(node);
        return node;
    }

    @Override
    protected void doLeave(NodeInfo node) {
        calls.add("leave " + node.nodeId());
        memberLeft(node.nodeId());
    }

    @Override
    protected void doClose() {
        calls.add("close");
    }
}
