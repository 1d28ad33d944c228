// A Relay client's deferred fragment: the organizations render at once, their users when the
// server's incremental payload arrives (@defer over multipart/mixed or Server-Sent Events). The
// compiler validates it against the schema snapshot (scripts/relay-check.sh).
import { graphql } from "react-relay";

export const organizationUsersFragment = graphql`
  fragment OrganizationUsers_organization on Organization {
    users(first: 4) {
      edges {
        node {
          id
          email
        }
      }
    }
  }
`;

export const organizationsQuery = graphql`
  query OrganizationUsersQuery {
    organizations(first: 3) {
      edges {
        node {
          id
          name
          ...OrganizationUsers_organization @defer(label: "users")
        }
      }
    }
  }
`;
