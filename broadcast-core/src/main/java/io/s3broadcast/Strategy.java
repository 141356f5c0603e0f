package io.s3broadcast;

/** How the nodes of a broadcast share the work of getting the object out of S3. */
public enum Strategy {

    /** Every node downloads the whole object from S3 itself; no peers. Reads the object once per node. */
    FLAT_TREE;

    /** Parses a name as users write it: {@code flat}, {@code flat-tree}, {@code FLAT_TREE}. */
    public static Strategy parse(String name) {
        String n = name.trim().toUpperCase(java.util.Locale.ROOT).replace('-', '_');
        if (n.equals("FLAT")) {
            return FLAT_TREE;
        }
        for (Strategy s : values()) {
            if (s.name().equals(n)) {
                return s;
            }
        }
        throw new IllegalArgumentException("unknown strategy '" + name + "': use one of "
                + java.util.Arrays.toString(values()).toLowerCase(java.util.Locale.ROOT).replace('_', '-'));
    }
}
