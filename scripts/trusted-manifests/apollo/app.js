import { gql } from "@apollo/client";

export const ORGANIZATIONS = gql`
  query Organizations {
    organizations(first: 2) { edges { node { name } } }
  }
`;
