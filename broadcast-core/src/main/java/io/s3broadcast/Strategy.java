package io.s3broadcast;

import java.util.Arrays;
import java.util.Locale;

/**
 * How the nodes of a broadcast share the work of getting the object out of S3. Every strategy but
 * {@link #FLAT_TREE} needs the {@code broadcast-p2p} module on the classpath and a node registry.
 */
public enum Strategy {

    /** Every node downloads the whole object from S3 itself; no peers. Reads the object once per node. */
    FLAT_TREE,

    /**
     * Phase 1: node i of N downloads pieces [iP/N, (i+1)P/N) from S3; phase 2, once every node finished
     * phase 1: nodes pull the missing pieces from each other.
     */
    NON_STEAL,

    /**
     * Like {@link #NON_STEAL}, but shares are cut into works and a node that runs out asks the node with the
     * most works left (drawn among the most loaded) to give it half of the works it has not started.
     */
    STEAL,

    /** {@link #STEAL} with phase 2 running from the first piece, alongside phase 1. */
    OVERLAP;

    /** True for the strategies that exchange pieces between nodes. */
    public boolean isCluster() {
        return this != FLAT_TREE;
    }

    /** Parses a name as users write it: {@code flat}, {@code flat-tree}, {@code non-steal}, {@code STEAL}. */
    public static Strategy parse(String name) {
        String n = name.trim().toUpperCase(Locale.ROOT).replace('-', '_');
        if (n.equals("FLAT")) {
            return FLAT_TREE;
        }
        for (Strategy s : values()) {
            if (s.name().equals(n)) {
                return s;
            }
        }
        throw new IllegalArgumentException("unknown strategy '" + name + "': use one of "
                + Arrays.toString(values()).toLowerCase(Locale.ROOT).replace('_', '-'));
    }
}
