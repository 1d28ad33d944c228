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
  var props = {
    fetcher: GraphiQL.createFetcher({ url: url, headers: headers ? JSON.parse(headers) : undefined }),
    defaultQuery: [
      '# Every response carries extensions.dynamodb: the DynamoDB calls the operation',
      '# made and the capacity they consumed. Run this with the ▶ button or Ctrl-Enter.',
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
