package kgforge.neo4jserver;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;

import org.neo4j.configuration.GraphDatabaseSettings;
import org.neo4j.configuration.connectors.BoltConnector;
import org.neo4j.configuration.connectors.BoltConnectorInternalSettings;
import org.neo4j.configuration.helpers.SocketAddress;
import org.neo4j.dbms.api.DatabaseManagementService;
import org.neo4j.dbms.api.DatabaseManagementServiceBuilder;
import org.neo4j.graphdb.GraphDatabaseService;

/**
 * Runs an embedded Neo4j 5 Community DBMS that accepts Bolt connections on a
 * loopback address, for kgforge development and CI (see scripts/neo4j.sh).
 *
 * <pre>
 *   java -cp 'lib/*' kgforge.neo4jserver.Main --data DIR [--bolt 127.0.0.1:7687] [--http off]
 * </pre>
 *
 * DIR is used as the Neo4j home: store files go to DIR/data, logs (debug.log,
 * query.log) to DIR/logs. Authentication is disabled, which is why only
 * loopback addresses are accepted. Prints {@value #READY} once clients can
 * connect, then blocks until the JVM is told to stop (SIGTERM/SIGINT), when a
 * shutdown hook closes the databases cleanly (no recovery on next start).
 */
public final class Main {
    /** Prefix of the line scripts wait for; followed by "host:port". */
    static final String READY = "neo4j-server: bolt listening on ";

    // Modest defaults: this is a dev/CI server sharing a small machine with the
    // Go tests, the loader and an LLM. The page cache is off-heap, on top of -Xmx.
    private static final long PAGE_CACHE_BYTES = 256L << 20;
    // Transaction state is kept on heap; bounding it makes an oversized load
    // batch fail with a clear MemoryLimitExceededException instead of an OOM
    // that takes the whole server down. Sized for a ~1 GiB heap.
    private static final long TX_MEMORY_GLOBAL_BYTES = 512L << 20;
    private static final long TX_MEMORY_PER_TX_BYTES = 256L << 20;
    // Transaction logs: by default each database (system and neo4j) gets a
    // preallocated 256 MiB file, i.e. 512 MiB of disk for an empty store, and
    // old logs are kept for 2 days. Grow files on demand, rotate at 64 MiB and
    // keep ~128 MiB per database: bounded disk use for a dev/CI cache.
    private static final long TX_LOG_ROTATION_BYTES = 64L << 20;
    private static final String TX_LOG_RETENTION = "128M size";
    // The Bolt server stops after the databases have been checkpointed and
    // closed, then waits for its connection and thread pools: 5 s each by
    // default even when idle, which made every stop take ~10 s. 1 s is plenty
    // here; debug.log then warns that Netty's event loops were "forcefully
    // terminated", which is harmless at that point. (Internal settings, fine
    // with a pinned Neo4j version.)
    private static final Duration BOLT_SHUTDOWN_WAIT = Duration.ofSeconds(1);

    public static void main(String[] args) throws Exception {
        Path data = null;
        String bolt = "127.0.0.1:7687";
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            switch (a) {
                case "--data" -> data = Path.of(value(args, ++i, a));
                case "--bolt" -> bolt = value(args, ++i, a);
                case "--http" -> {
                    // DatabaseManagementServiceBuilder never starts Neo4j's
                    // HTTP API (only the full server's bootstrapper does), so
                    // "off" is the only option; accepted so callers can say so.
                    if (!value(args, ++i, a).equals("off")) {
                        usage("--http: only 'off' is supported (embedded Neo4j serves no HTTP API)");
                    }
                }
                case "-h", "--help" -> usage(null);
                default -> usage("unknown argument: " + a);
            }
        }
        if (data == null) {
            usage("--data DIR is required");
        }
        SocketAddress boltAddress = parseLoopback(bolt);
        Path home = data.toAbsolutePath();
        Files.createDirectories(home);

        DatabaseManagementService dbms = new DatabaseManagementServiceBuilder(home)
                .setConfig(BoltConnector.enabled, true)
                .setConfig(BoltConnector.listen_address, boltAddress)
                .setConfig(GraphDatabaseSettings.auth_enabled, false)
                .setConfig(GraphDatabaseSettings.logs_directory, home.resolve("logs"))
                .setConfig(GraphDatabaseSettings.pagecache_memory, PAGE_CACHE_BYTES)
                .setConfig(GraphDatabaseSettings.memory_transaction_global_max_size, TX_MEMORY_GLOBAL_BYTES)
                .setConfig(GraphDatabaseSettings.memory_transaction_max_size, TX_MEMORY_PER_TX_BYTES)
                .setConfig(GraphDatabaseSettings.preallocate_logical_logs, false)
                .setConfig(GraphDatabaseSettings.logical_log_rotation_threshold, TX_LOG_ROTATION_BYTES)
                .setConfig(GraphDatabaseSettings.keep_logical_logs, TX_LOG_RETENTION)
                .setConfig(BoltConnectorInternalSettings.connection_shutdown_wait_time, BOLT_SHUTDOWN_WAIT)
                .setConfig(BoltConnectorInternalSettings.thread_pool_shutdown_wait_time, BOLT_SHUTDOWN_WAIT)
                .build();

        // Registered right after build() so that a SIGTERM during the readiness
        // wait below still shuts the store down cleanly.
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            System.out.println("neo4j-server: shutting down");
            try {
                dbms.shutdown();
            } finally {
                System.out.println("neo4j-server: stopped");
                stopped.countDown();
            }
        }, "neo4j-server-shutdown"));

        // build() has started the Bolt server, but the default database may
        // still be starting (recovery after a crash can take a while).
        GraphDatabaseService db = dbms.database(GraphDatabaseSettings.DEFAULT_DATABASE_NAME);
        while (!db.isAvailable(10_000)) {
            System.out.println("neo4j-server: waiting for database '" + db.databaseName() + "' to become available");
        }
        // Check what clients will see: something accepts TCP on the address.
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress(boltAddress.getHostname(), boltAddress.getPort()), 5_000);
        } catch (IOException e) {
            System.err.println("neo4j-server: bolt connector not reachable at " + boltAddress + ": " + e);
            System.exit(1); // runs the shutdown hook
        }
        System.out.println(READY + boltAddress + " (Neo4j " + neo4jVersion() + ", data " + home + ")");

        // Nothing else to do on this thread; the shutdown hook ends the process.
        stopped.await();
    }

    /** Parses host:port and rejects non-loopback hosts: auth is disabled. */
    private static SocketAddress parseLoopback(String hostPort) {
        int colon = hostPort.lastIndexOf(':');
        if (colon <= 0 || colon == hostPort.length() - 1) {
            usage("--bolt: expected host:port, got '" + hostPort + "'");
        }
        String host = hostPort.substring(0, colon);
        int port = 0;
        try {
            port = Integer.parseInt(hostPort.substring(colon + 1));
        } catch (NumberFormatException e) {
            usage("--bolt: bad port in '" + hostPort + "'");
        }
        try {
            if (!InetAddress.getByName(host).isLoopbackAddress()) {
                usage("--bolt: " + host + " is not a loopback address (auth is disabled)");
            }
        } catch (IOException e) {
            usage("--bolt: cannot resolve " + host + ": " + e.getMessage());
        }
        return new SocketAddress(host, port);
    }

    /** The version of the Neo4j jars on the class path, e.g. "5.26.30". */
    private static String neo4jVersion() {
        String v = DatabaseManagementService.class.getPackage().getImplementationVersion();
        return v != null ? v : "unknown";
    }

    private static String value(String[] args, int i, String flag) {
        if (i >= args.length) {
            usage(flag + " needs a value");
        }
        return args[i];
    }

    private static void usage(String error) {
        if (error != null) {
            System.err.println("neo4j-server: " + error);
        }
        System.err.println("usage: java -cp 'lib/*' kgforge.neo4jserver.Main --data DIR [--bolt 127.0.0.1:7687] [--http off]");
        System.exit(error == null ? 0 : 2);
    }
}
