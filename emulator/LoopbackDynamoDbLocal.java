import java.lang.reflect.Field;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import software.amazon.dynamodb.services.local.main.ServerRunner;
import software.amazon.dynamodb.services.local.server.DynamoDBProxyServer;

/**
 * DynamoDB Local, bound to 127.0.0.1 instead of every interface. Its command line has no option
 * for an address, and its Jetty server is built with a port only; this builds that server from the
 * same arguments (ServerRunner, as DynamoDBLocal.jar's main does), sets the host of its connectors
 * before it starts, and runs it. Launched by emulator/dynamodb-local.ts as a single source file
 * (java LoopbackDynamoDbLocal.java ...), with DynamoDBLocal.jar and its libraries on the class path.
 */
public final class LoopbackDynamoDbLocal {
  public static void main(String[] args) throws Exception {
    DynamoDBProxyServer proxy = ServerRunner.createServerFromCommandLineArgs(args);
    Field field = DynamoDBProxyServer.class.getDeclaredField("server");
    field.setAccessible(true);
    Server server = (Server) field.get(proxy);
    Connector[] connectors = server.getConnectors();
    if (connectors.length == 0) throw new IllegalStateException("DynamoDB Local has no connector to bind");
    for (Connector connector : connectors) ((ServerConnector) connector).setHost("127.0.0.1");
    proxy.start();
    proxy.join();
  }
}
