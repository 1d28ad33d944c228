// Starts GraphiQL on the page. It lives in a file of its own, not inline, so that the page's
// Content-Security-Policy can refuse every inline script. The server passes its settings in data
// attributes of #graphiql: the GraphQL endpoint and, optionally, the JSON of the headers that
// prefill the headers editor (an Authorization header for local development, say).
(function () {
  'use strict';
  var root = document.getElementById('graphiql');
  var url = new URL(root.dataset.endpoint, window.location.href).toString();
  var headers = root.dataset.headers || '';
  var props = {
    fetcher: GraphiQL.createFetcher({ url: url }),
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
