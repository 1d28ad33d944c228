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
  var base = GraphiQL.createFetcher({ url: url, headers: headers ? JSON.parse(headers) : undefined });
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
    return base(params, Object.assign({}, opts, { headers: h }));
  };
  var props = {
    fetcher: fetcher,
    defaultQuery: [
      '# Every response carries extensions.dynamodb: the DynamoDB calls the operation',
      '# made and the capacity they consumed. Run this with the ▶ button or Ctrl-Enter.',
      '# To see the plan and its price without running it, add "X-Explain": "true" to',
      '# the headers (below): the answer is extensions.plan.',
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
