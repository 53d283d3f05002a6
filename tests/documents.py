"""The GraphQL documents the tests send, each written once and named after its root field.

A mutation that takes an input object takes it whole as `$input`; other arguments are
variables of their own. Payloads select their scalar fields (and `product { id }`,
`customer { id }` where a test checks the written link resolves). A test that means to send
something else (a literal, a bad shape, a selection of its own) writes that document beside
the test.
"""

from __future__ import annotations

PAGE_INFO = "pageInfo { hasNextPage hasPreviousPage startCursor endCursor }"
PAGE_ARGS = "first: $first, after: $after, last: $last, before: $before"
PAGE_PARAMS = "$first: Int, $after: String, $last: Int, $before: String"

# ---- customers and orders ------------------------------------------------------------------

CREATE_CUSTOMER = """mutation ($input: CreateCustomerInput!) {
  createCustomer(input: $input) { id name email createdAt } }"""
PLACE_ORDER = """mutation ($input: PlaceOrderInput!) {
  placeOrder(input: $input) { id status placedAt updatedAt totalCents
    items { position sku quantity unitPriceCents } customer { id } } }"""
SET_ORDER_STATUS = """mutation ($id: ID!, $status: OrderStatus!) {
  setOrderStatus(id: $id, status: $status) { id status updatedAt } }"""
ORDER_CONNECTION = f"edges {{ cursor node {{ id status placedAt }} }} {PAGE_INFO}"
CUSTOMER_ORDERS = f"""query ($id: ID!, $status: OrderStatus, $placed: DateTimeRange,
                  $direction: SortDirection, {PAGE_PARAMS}) {{
  customer(id: $id) {{ orders(status: $status, placed: $placed, direction: $direction,
                             {PAGE_ARGS}) {{ {ORDER_CONNECTION} }} }} }}"""
OPEN_ORDERS = f"""query ({PAGE_PARAMS}) {{
  openOrders({PAGE_ARGS}) {{ {ORDER_CONNECTION} }} }}"""

# ---- products and comments -----------------------------------------------------------------

CREATE_PRODUCT = """mutation ($input: CreateProductInput!) {
  createProduct(input: $input) { id name } }"""
POST_COMMENT = """mutation ($input: PostCommentInput!) {
  postComment(input: $input) { id language rating body createdAt product { id } } }"""
EDIT_COMMENT = """mutation ($input: EditCommentInput!) {
  editComment(input: $input) { id language rating body createdAt } }"""
DELETE_COMMENT = "mutation ($id: ID!) { deleteComment(id: $id) }"
COMMENT = """query ($id: ID!) {
  comment(id: $id) { id language rating body createdAt product { id name } } }"""
COMMENTS = f"""query ($id: ID!, $language: String, $ratings: [Int!], {PAGE_PARAMS}) {{
  product(id: $id) {{ comments(language: $language, ratings: $ratings, {PAGE_ARGS}) {{
    edges {{ cursor node {{ id language rating body createdAt }} }} {PAGE_INFO} }} }} }}"""

# ---- map markers ---------------------------------------------------------------------------

ADD_MARKER = """mutation ($input: AddMarkerInput!) {
  addMarker(input: $input) { id lat lon geohash label createdAt } }"""
REMOVE_MARKER = "mutation ($id: ID!) { removeMarker(id: $id) }"
MARKERS = """query ($viewport: Viewport!, $limit: Int) {
  markers(viewport: $viewport, limit: $limit) {
    truncated markers { id lat lon geohash label createdAt } } }"""
MARKERS_DEFAULT_LIMIT = """query ($viewport: Viewport!) {
  markers(viewport: $viewport) { truncated markers { id } } }"""
HEATMAP = """query ($viewport: Viewport!, $precision: Int) {
  heatmap(viewport: $viewport, precision: $precision) { precision cells { geohash count } } }"""
HEATMAP_DEFAULT = """query ($viewport: Viewport!) {
  heatmap(viewport: $viewport) { precision cells { geohash count } } }"""

# ---- repositories --------------------------------------------------------------------------

REPO_FIELDS = "owner name description createdAt starCount"
CREATE_REPO = f"""mutation ($input: CreateRepoInput!) {{
  createRepo(input: $input) {{ {REPO_FIELDS} }} }}"""
OPEN_ISSUE = """mutation ($owner: String!, $name: String!, $title: String!) {
  openIssue(input: {owner: $owner, name: $name, title: $title}) {
    number title state createdAt } }"""
CLOSE_ISSUE = """mutation ($owner: String!, $name: String!, $number: Int!) {
  closeIssue(owner: $owner, name: $name, number: $number) { number title state } }"""
STAR_REPO = """mutation ($owner: String!, $name: String!, $username: String!) {
  starRepo(owner: $owner, name: $name, username: $username) { owner name starCount } }"""
UNSTAR_REPO = """mutation ($owner: String!, $name: String!, $username: String!) {
  unstarRepo(owner: $owner, name: $name, username: $username) { owner name starCount } }"""
REPO = f"""query ($owner: String!, $name: String!) {{
  repo(owner: $owner, name: $name) {{ {REPO_FIELDS} }} }}"""
ISSUES = f"""query ($owner: String!, $name: String!, $state: IssueState, {PAGE_PARAMS}) {{
  repo(owner: $owner, name: $name) {{ issues(state: $state, {PAGE_ARGS}) {{
    edges {{ cursor node {{ number title state }} }} {PAGE_INFO} }} }} }}"""
STARS = f"""query ($owner: String!, $name: String!, {PAGE_PARAMS}) {{
  repo(owner: $owner, name: $name) {{ starCount stars({PAGE_ARGS}) {{
    edges {{ cursor node {{ username starredAt }} }} {PAGE_INFO} }} }} }}"""
ISSUE_AUTHORS = """query ($owner: String!, $name: String!) {
  repo(owner: $owner, name: $name) { issues { edges { node { number state author } } } } }"""

# ---- organizations -------------------------------------------------------------------------

MEMBER_FIELDS = "username name role joinedAt"
CREATE_ORGANIZATION = """mutation ($name: String!) {
  createOrganization(input: {name: $name}) { name createdAt } }"""
ORGANIZATION = "query ($name: String!) { organization(name: $name) { name createdAt } }"
ADD_MEMBER = f"""mutation ($input: AddMemberInput!) {{
  addMember(input: $input) {{ {MEMBER_FIELDS} }} }}"""
SET_MEMBER_ROLE = f"""mutation ($org: String!, $username: String!, $role: Role!) {{
  setMemberRole(organization: $org, username: $username, role: $role) {{ {MEMBER_FIELDS} }} }}"""
CREATE_TEAM = """mutation ($org: String!, $name: String!) {
  createTeam(organization: $org, name: $name) { name createdAt } }"""


def _member_list(field: str) -> str:
    return f"""query ($name: String!, {PAGE_PARAMS}) {{ organization(name: $name) {{
  {field}({PAGE_ARGS}) {{ edges {{ cursor node {{ {MEMBER_FIELDS} }} }} {PAGE_INFO} }} }} }}"""


MEMBERS = _member_list("members")
ADMINS = _member_list("admins")
TEAMS = "query ($name: String!) { organization(name: $name) { name teams { name createdAt } } }"

# ---- ticket queues -------------------------------------------------------------------------

TICKET_FIELDS = "id title status createdAt updatedAt"
CREATE_QUEUE = "mutation ($input: CreateQueueInput!) { createQueue(input: $input) { id name } }"
QUEUE = "query ($id: ID!) { queue(id: $id) { id name } }"
OPEN_TICKET = f"""mutation ($input: OpenTicketInput!) {{
  openTicket(input: $input) {{ {TICKET_FIELDS} }} }}"""
UPDATE_TICKET = f"""mutation ($input: UpdateTicketInput!) {{
  updateTicket(input: $input) {{ {TICKET_FIELDS} }} }}"""
TICKET = f"query ($id: ID!) {{ ticket(id: $id) {{ {TICKET_FIELDS} }} }}"
TICKETS = f"""query ($id: ID!, {PAGE_PARAMS}) {{
  queue(id: $id) {{ id name tickets({PAGE_ARGS}) {{
    edges {{ cursor node {{ {TICKET_FIELDS} }} }} {PAGE_INFO} }} }} }}"""
