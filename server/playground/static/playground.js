// Starts GraphiQL on the page. It lives in a file of its own, not inline, so that the page's
// Content-Security-Policy can refuse every inline script. The server passes its settings in data
// attributes of #graphiql: the GraphQL endpoint and, optionally, the JSON of the headers that
// prefill the headers editor (an Authorization header for local development, say).
(function () {
  'use strict';
  var root = document.getElementById('graphiql');
  var url = new URL(root.dataset.endpoint, window.location.href).toString();
  var headers = root.dataset.headers || '';
  // The prefilled headers are also the fetcher's defaults: GraphiQL fetches the schema before its
  // headers editor exists, and without them that first request would go out with no token. What
  // the editor holds at run time overrides them, header by header.
  // enableIncrementalDelivery (GraphiQL's default, made explicit): queries and mutations go out
  // with Accept: application/json, multipart/mixed, so that an operation with @defer comes as the
  // server's multipart/mixed payloads, each shown as it arrives and merged into the result.
  var base = GraphiQL.createFetcher({
    url: url, headers: headers ? JSON.parse(headers) : undefined, enableIncrementalDelivery: true
  });
  // The Explain preset: a header "X-Explain": "true" in the headers editor is not sent as a
  // header; it asks for the operation's plan instead ("extensions": {"explain": true} in the
  // request body), which the result pane then shows in extensions.plan, with nothing run.
  // GraphiQL's own schema fetch is never explained.
  var fetcher = function (params, opts) {
    var h = Object.assign({}, opts && opts.headers);
    var explain = false;
    Object.keys(h).forEach(function (k) {
      if (k.toLowerCase() === 'x-explain') {
        explain = String(h[k]).toLowerCase() === 'true';
        delete h[k];
      }
    });
    if (explain && params.operationName !== 'IntrospectionQuery') {
      params = Object.assign({}, params, { extensions: Object.assign({}, params.extensions, { explain: true }) });
    }
    if (!explain && isSubscription(params, opts)) {
      return eventStream(params, Object.assign({}, defaultHeaders, h));
    }
    return base(params, Object.assign({}, opts, { headers: h }));
  };
  var defaultHeaders = headers ? JSON.parse(headers) : {};

  // isSubscription reports whether the operation GraphiQL runs is a subscription.
  function isSubscription(params, opts) {
    var doc = opts && opts.documentAST;
    if (!doc) return /^\s*subscription\b/.test(String(params.query).replace(/^\s*#.*$/gm, ''));
    return doc.definitions.some(function (d) {
      return d.kind === 'OperationDefinition' && d.operation === 'subscription' &&
        (!params.operationName || (d.name && d.name.value === params.operationName));
    });
  }

  // eventStream runs a subscription over Server-Sent Events (a POST with Accept:
  // text/event-stream, as the graphql-sse client sends it): GraphiQL shows each event as it comes,
  // from the async iterator this returns, until the server completes the subscription or the
  // user stops it.
  async function* eventStream(params, hdrs) {
    var ctl = new AbortController();
    var resp = await fetch(url, {
      method: 'POST', signal: ctl.signal, body: JSON.stringify(params),
      headers: Object.assign({ 'Content-Type': 'application/json', Accept: 'text/event-stream' }, hdrs)
    });
    if (!(resp.headers.get('Content-Type') || '').startsWith('text/event-stream')) {
      yield await resp.json(); // refused before it opened: the errors
      return;
    }
    var reader = resp.body.getReader();
    var decoder = new TextDecoder();
    var buf = '';
    try {
      for (;;) {
        var chunk = await reader.read();
        if (chunk.done) return;
        buf += decoder.decode(chunk.value, { stream: true });
        var end;
        while ((end = buf.indexOf('\n\n')) >= 0) {
          var ev = parseEvent(buf.slice(0, end));
          buf = buf.slice(end + 2);
          if (ev.event === 'complete') return;
          if (ev.data) yield JSON.parse(ev.data);
        }
      }
    } finally {
      ctl.abort();
    }
  }

  // parseEvent reads one Server-Sent Events block: its event name and its data lines.
  function parseEvent(block) {
    var ev = { event: 'message', data: '' };
    block.split('\n').forEach(function (line) {
      if (line.indexOf('event:') === 0) ev.event = line.slice(6).trim();
      else if (line.indexOf('data:') === 0) ev.data += line.slice(5).trim();
    });
    return ev;
  }
  var props = {
    fetcher: fetcher,
    defaultQuery: [
      '# Every response carries extensions.dynamodb: the DynamoDB calls the operation',
      '# made and the capacity they consumed. Run this with the ▶ button or Ctrl-Enter.',
      '# To see the plan and its price without running it, add "X-Explain": "true" to',
      '# the headers (below): the answer is extensions.plan. Subscriptions run here too,',
      '# over Server-Sent Events: each change shows as it comes, and so do the later',
      '# payloads of a fragment marked @defer (try "... @defer { users(first: 3) { … } }").',
      'query Organizations {',
      '  organizations(first: 5) {',
      '    edges {',
      '      node {',
      '        id',
      '        name',
      '        users(first: 3) { edges { node { name email } } }',
      '      }',
      '    }',
      '  }',
      '}',
      ''
    ].join('\n'),
    isHeadersEditorEnabled: true,
    // Tokens typed into the headers editor stay out of localStorage.
    shouldPersistHeaders: false
  };
  if (headers) {
    props.headers = headers;
    props.defaultEditorToolsVisibility = 'headers';
  }
  ReactDOM.createRoot(root).render(React.createElement(GraphiQL, props));
})();
