import { graphql } from "relay-runtime";

export const organizations = graphql`
  query AppOrganizationsQuery {
    organizations(first: 2) { edges { node { name } } }
  }
`;

export const createOrganization = graphql`
  mutation AppCreateOrganizationMutation($input: CreateOrganizationInput!) {
    createOrganization(input: $input) { name }
  }
`;
