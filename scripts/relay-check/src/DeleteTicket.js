// A Relay client's removal of a ticket: @deleteRecord drops the record with the returned ID from
// the store. The compiler validates it against the schema snapshot (scripts/relay-check.sh).
import { graphql } from "react-relay";

export const deleteTicketMutation = graphql`
  mutation DeleteTicketMutation($i: DeleteTicketInput!) {
    deleteTicket(input: $i) {
      deletedId @deleteRecord
    }
  }
`;
