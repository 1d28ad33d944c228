// Apollo Client 4 in Node, as a frontend uses it: an HttpLink, the Defer20220824Handler (Apollo's
// multipart/mixed deferSpec=20220824) and watchQuery, against a running server. It prints one JSON
// line per result the client delivers (what a component would render), then exits 0; the Go test
// (server/defer_apollo_test.go) judges them.
//
//   node defer.mjs URL TOKEN QUERY
import { ApolloClient, HttpLink, InMemoryCache, gql } from "@apollo/client";
import { Defer20220824Handler } from "@apollo/client/incremental";

const [url, token, query] = process.argv.slice(2);
const client = new ApolloClient({
  link: new HttpLink({ uri: url, headers: { Authorization: `Bearer ${token}` } }),
  cache: new InMemoryCache(),
  incrementalHandler: new Defer20220824Handler(),
});

const timeout = setTimeout(() => {
  console.error("apollo-defer: no complete result within 20 s");
  process.exit(2);
}, 20000);

const sub = client.watchQuery({ query: gql(query) }).subscribe({
  next(result) {
    const { data, dataState, loading, networkStatus, error } = result;
    console.log(JSON.stringify({ dataState, loading, networkStatus, error: error?.message ?? null, data }));
    if (dataState === "complete" && !loading) {
      clearTimeout(timeout);
      sub.unsubscribe();
      process.exit(0);
    }
  },
  error(err) {
    console.error("apollo-defer:", err);
    process.exit(1);
  },
});
